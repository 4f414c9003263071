import type { Subscriber } from '../../outbox/events.js';
import { crmDeliveries } from './outbox.js';
import { startCrmWorker } from './worker.js';

/**
 * HubSpot and Pipedrive sync (contract §18): companies, notes and contacts of the
 * organisations that qualify, from the events producers record anyway, so it asks them
 * for nothing more.
 */
export const crm: Subscriber = {
  name: 'crm',
  interest: async () => null,
  deliveries: crmDeliveries,
  start: (deps, everyMs) => startCrmWorker(deps, everyMs),
};
