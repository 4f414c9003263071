import { crm } from './integrations/crm/subscriber.js';
import { zapier } from './integrations/zapier/subscriber.js';
import { notifications } from './notifications/subscriber.js';
import type { Subscriber } from './outbox/events.js';
import { webhooks } from './webhooks/subscriber.js';

/**
 * Everyone who receives the outbox's events (docs/architecture.md, "The outbox and its
 * subscribers"): a new subscriber is its own folder and one line here.
 */
export const SUBSCRIBERS: readonly Subscriber[] = [webhooks, notifications, zapier, crm];
