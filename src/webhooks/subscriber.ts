import type { Subscriber } from '../outbox/events.js';
import { webhookDeliveries, webhookInterest } from './outbox.js';
import { startDeliveryWorker } from './worker.js';

/** Operator webhooks (contract §10, §12, §15): signed JSON to each member's receiver. */
export const webhooks: Subscriber = {
  name: 'webhook',
  interest: webhookInterest,
  deliveries: webhookDeliveries,
  start: (deps, everyMs) => startDeliveryWorker(deps, everyMs),
};
