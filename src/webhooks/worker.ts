import { type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { Database, WebhookDeliveryTable } from '../db/schema.js';
import { postChecked, type Sent } from '../http/outbound/post.js';
import { sign } from '../http/outbound/signing.js';
import { deadline, startDeliveryLoop } from '../outbox/delivery-loop.js';
import type { SubscriberDeps } from '../outbox/events.js';
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
// Due rows looked at per claim, to share the free slots among users.
const CANDIDATES = 500;

export type WorkerDeps = Omit<SubscriberDeps, 'mailer'>;

type Delivery = Selectable<WebhookDeliveryTable>;

/**
 * The webhook worker: claims due deliveries (SKIP LOCKED, so
 * any number of servers can run it) and sends, signs and reschedules each on its own, in
 * the shared delivery loop, at most PER_USER in flight for one user.
 */
export function startDeliveryWorker(deps: WorkerDeps, pollMs = 500): { stop(): Promise<void> } {
  return startDeliveryLoop<Delivery>(
    {
      inFlight: IN_FLIGHT,
      perTenant: PER_USER,
      tenantOf: (delivery) => delivery.user_id,
      claim: (free, busy) => claim(deps.db, free, busy),
      attempt: (delivery, signal) => attempt(deps, delivery, signal),
      release: (deliveries) => release(deps.db, deliveries),
      failed: (error, delivery) =>
        deps.log(
          delivery
            ? `webhook delivery ${delivery.id}: ${error.message}`
            : `webhook worker: ${error.message}`,
          error,
        ),
    },
    pollMs,
  );
}

/**
 * Claims up to `free` due deliveries, at most PER_USER in flight for any user (counting
 * `perUser`, those this server already has in flight), and leases them.
 */
async function claim(
  db: Kysely<Database>,
  free: number,
  perUser: ReadonlyMap<string, number>,
): Promise<Delivery[]> {
  const users = [...perUser.keys()];
  const inFlight = users.map((user) => perUser.get(user) as number);
  const { rows } = await sql<Delivery>`
    WITH busy AS (
      SELECT * FROM unnest(${users}::uuid[], ${inFlight}::int[]) AS b(user_id, in_flight)
    ), candidates AS (
      SELECT d.id, d.user_id,
             row_number() OVER (PARTITION BY d.user_id ORDER BY d.next_attempt_at, d.id) AS rank
      FROM (SELECT id, user_id, next_attempt_at FROM webhook_deliveries
            WHERE status = 'pending' AND next_attempt_at <= now()
              AND user_id NOT IN (SELECT user_id FROM busy WHERE in_flight >= ${PER_USER})
            ORDER BY next_attempt_at LIMIT ${CANDIDATES}) d
    )
    UPDATE webhook_deliveries d
    SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
    FROM (SELECT id FROM webhook_deliveries
          WHERE id IN (SELECT c.id FROM candidates c LEFT JOIN busy b USING (user_id)
                       WHERE c.rank <= ${PER_USER} - coalesce(b.in_flight, 0))
            AND status = 'pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at LIMIT ${free} FOR UPDATE SKIP LOCKED) due
    WHERE d.id = due.id
    RETURNING d.*`.execute(db);
  return rows;
}

/** Hands deliveries back, due now and their attempt not counted, for any server to take. */
async function release(db: Kysely<Database>, deliveries: Delivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ attempts: eb('attempts', '-', 1), next_attempt_at: new Date() }))
    .where(
      'id',
      'in',
      deliveries.map((delivery) => delivery.id),
    )
    .where('status', '=', 'pending')
    .execute();
}

async function attempt(
  deps: WorkerDeps,
  delivery: Delivery,
  stopping: AbortSignal,
): Promise<'done' | 'unfinished'> {
  const { db, config } = deps;
  const finish = (values: Updateable<WebhookDeliveryTable>) =>
    db.updateTable('webhook_deliveries').set(values).where('id', '=', delivery.id).execute();
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
async function send(
  deps: WorkerDeps,
  delivery: Delivery,
  url: URL,
  body: string,
  secret: string,
  stopping: AbortSignal,
): Promise<Sent> {
  const attempt = deadline(stopping, deps.config.webhookTimeoutSeconds);
  try {
    const timestamp = String(Math.floor(Date.now() / 1000));
    return await postChecked(
      url,
      body,
      {
        'content-type': 'application/json',
        'user-agent': 'Footfall-Webhooks/1',
        'x-footfall-event': delivery.event,
        'x-footfall-delivery': delivery.id,
        'x-footfall-timestamp': timestamp,
        'x-footfall-signature': sign(secret, `${timestamp}.${body}`),
      },
      {
        allowPrivate: deps.config.allowPrivateWebhooks,
        resolve: deps.resolve,
        signal: attempt.signal,
      },
    );
  } finally {
    attempt.clear();
  }
}
