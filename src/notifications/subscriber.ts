import type { Subscriber } from '../outbox/events.js';
import { notificationDeliveries } from './outbox.js';
import { alertsWanted } from './store.js';
import { startNotificationWorker } from './worker.js';

/** Alert rules (contract §15): e-mail, Slack or webhook, on what the collector records. */
export const notifications: Subscriber = {
  name: 'notification',
  interest: async (db, workspaceId) => ((await alertsWanted(db, workspaceId)) ? 'session' : null),
  deliveries: notificationDeliveries,
  start: (deps, everyMs) => startNotificationWorker(deps, everyMs),
};
