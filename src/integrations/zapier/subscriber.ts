import type { Subscriber } from '../../outbox/events.js';
import { zapierDeliveries } from './outbox.js';
import { startZapierWorker } from './worker.js';

/**
 * Zapier REST hooks (contract §18; also Make and n8n): each hook receives its event's
 * Organisation, Session or Contact as JSON. The events it wants are always recorded, so it
 * asks producers for nothing more.
 */
export const zapier: Subscriber = {
  name: 'zapier',
  interest: async () => null,
  deliveries: zapierDeliveries,
  start: (deps, everyMs) => startZapierWorker(deps, everyMs),
};
