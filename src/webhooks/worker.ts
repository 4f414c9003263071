import type { Selectable, Updateable } from 'kysely';
import type { WebhookDeliveryTable } from '../db/schema.js';
import type { Sent } from '../http/outbound/post.js';
import { sign } from '../http/outbound/signing.js';
import { type DueTable, startDueLoop } from '../outbox/claim-due.js';
import type { SubscriberDeps } from '../outbox/events.js';
import { postDelivery } from '../outbox/post-delivery.js';
import { settle } from '../outbox/retry.js';
import { renderBody } from './body.js';
import { findWebhookConfig } from './store.js';

// A claimed delivery is not claimed again for this long: a worker that dies mid-send
// leaves it to be retried (at least once delivery). It exceeds the longest attempt
// deadline (WEBHOOK_TIMEOUT_SECONDS ≤ 30) with room for the bookkeeping around it.
const LEASE_SECONDS = 60;
// Deliveries in flight in one server, and for one user: a user whose receiver hangs can
// hold at most PER_USER of the IN_FLIGHT slots, so everybody else's still go out.
const IN_FLIGHT = 32;
const PER_USER = 4;
const DUE: DueTable = {
  name: 'webhook',
  inFlight: IN_FLIGHT,
  table: 'webhook_deliveries',
  tenant: 'user_id',
  perTenant: PER_USER,
  leaseSeconds: LEASE_SECONDS,
};

export type WorkerDeps = Omit<SubscriberDeps, 'mailer'>;

type Delivery = Selectable<WebhookDeliveryTable>;

/**
 * The webhook worker: claims due deliveries (SKIP LOCKED, so
 * any number of servers can run it) and sends, signs and reschedules each on its own, in
 * the shared delivery loop, at most PER_USER in flight for one user.
 */
export function startDeliveryWorker(deps: WorkerDeps, pollMs = 500): { stop(): Promise<void> } {
  return startDueLoop<Delivery>(
    deps.db,
    DUE,
    (delivery, signal) => attempt(deps, delivery, signal),
    deps.log,
    pollMs,
  );
}

async function attempt(
  deps: WorkerDeps,
  delivery: Delivery,
  stopping: AbortSignal,
): Promise<'done' | 'unfinished'> {
  const { db, config } = deps;
  const finish = (values: Updateable<WebhookDeliveryTable>) =>
    db
      .updateTable('webhook_deliveries')
      .set(values)
      .where('workspace_id', '=', delivery.workspace_id)
      .where('id', '=', delivery.id)
      .execute();
  const target = await findWebhookConfig(db, deps.encryptionKey, delivery.user_id);
  if (!target?.url) {
    await finish({ status: 'failed', last_error: 'Webhook delivery was switched off.' });
    return 'done';
  }
  let body = delivery.body;
  if (body === null) {
    body = await renderBody(db, delivery);
    await finish({ body });
  }
  const outcome = await send(deps, delivery, new URL(target.url), body, target.secret, stopping);
  if (stopping.aborted && outcome.status === null) return 'unfinished';
  await finish(settle(outcome, delivery.attempts, config.webhookRetrySeconds));
  return 'done';
}

/** One attempt within the deadline: the address check, connecting, sending, the status line. */
function send(
  deps: WorkerDeps,
  delivery: Delivery,
  url: URL,
  body: string,
  secret: string,
  stopping: AbortSignal,
): Promise<Sent> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return postDelivery(
    deps,
    url,
    body,
    {
      'user-agent': 'Footfall-Webhooks/1',
      'x-footfall-event': delivery.event,
      'x-footfall-delivery': delivery.id,
      'x-footfall-timestamp': timestamp,
      'x-footfall-signature': sign(secret, `${timestamp}.${body}`),
    },
    stopping,
  );
}
