import { type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { Config } from '../config.js';
import { runPeriodically } from '../db/periodic.js';
import type { Database, WebhookDeliveryTable } from '../db/schema.js';
import {
  addressesOf,
  publicAddressesOf,
  type Resolver,
  systemResolver,
  UnsafeAddressError,
} from './address-guard.js';
import { renderBody } from './body.js';
import { enqueueEndedSessions } from './outbox.js';
import { post, type Sent } from './send.js';
import { sign } from './signing.js';
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

export interface WorkerDeps {
  db: Kysely<Database>;
  config: Config;
  encryptionKey: Buffer;
  resolve?: Resolver;
  /** A failure of the worker's own (not of a delivery), with its error. */
  log: (message: string, error: unknown) => void;
}

type Delivery = Selectable<WebhookDeliveryTable>;

/**
 * The webhook worker: finds ended sessions, then claims due deliveries (SKIP LOCKED, so
 * any number of servers can run it) and sends, signs and reschedules each on its own:
 * nothing waits for a delivery but its own bookkeeping.
 */
export function startDeliveryWorker(deps: WorkerDeps, pollMs = 500): { stop(): Promise<void> } {
  const perUser = new Map<string, number>();
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();
  let filling: Promise<void> | null = null;
  // Set when the last fill ran out of slots, so a finished delivery makes room for the next.
  let more = false;

  const start = (delivery: Delivery) => {
    const user = delivery.user_id;
    perUser.set(user, (perUser.get(user) ?? 0) + 1);
    const done = attempt(deps, delivery, stopping.signal)
      .catch((error) =>
        deps.log(`webhook delivery ${delivery.id}: ${(error as Error).message}`, error),
      )
      .finally(() => {
        running.delete(done);
        const left = (perUser.get(user) ?? 1) - 1;
        if (left > 0) perUser.set(user, left);
        else perUser.delete(user);
        if (more) fill();
      });
    running.add(done);
  };

  // Claims into the free slots until they are full or nothing more is due.
  const claimWhileFree = async () => {
    for (;;) {
      const free = IN_FLIGHT - running.size;
      more = free === 0;
      if (free === 0) return;
      const claimed = await claim(deps.db, free, perUser);
      if (stopping.signal.aborted) return release(deps.db, claimed);
      for (const delivery of claimed) start(delivery);
      if (claimed.length === 0) return;
    }
  };
  // One claimer at a time, so the caps are counted right.
  const fill = (): Promise<void> => {
    if (stopping.signal.aborted) return Promise.resolve();
    filling ??= claimWhileFree()
      .catch((error) => deps.log(`webhook worker: ${(error as Error).message}`, error))
      .finally(() => {
        filling = null;
      });
    return filling;
  };

  const ticks = runPeriodically(async () => {
    try {
      await enqueueEndedSessions(deps.db, deps.config.sessionIdleSeconds);
    } catch (error) {
      deps.log(`webhook worker: ${(error as Error).message}`, error);
    }
    await fill();
  }, pollMs);

  return {
    async stop() {
      await ticks.stop();
      stopping.abort(new Error('the server stopped during the attempt'));
      await filling;
      await Promise.all(running);
    },
  };
}

/**
 * Claims up to `free` due deliveries, at most PER_USER in flight for any user (counting
 * `perUser`, those this server already has in flight), and leases them.
 */
async function claim(
  db: Kysely<Database>,
  free: number,
  perUser: Map<string, number>,
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

async function attempt(deps: WorkerDeps, delivery: Delivery, stopping: AbortSignal): Promise<void> {
  const { db, config } = deps;
  const finish = (values: Updateable<WebhookDeliveryTable>) =>
    db.updateTable('webhook_deliveries').set(values).where('id', '=', delivery.id).execute();
  const target = await findWebhookConfig(db, deps.encryptionKey, delivery.user_id);
  if (!target?.url) {
    await finish({ status: 'failed', last_error: 'Webhook delivery was switched off.' });
    return;
  }
  let body = delivery.body;
  if (body === null) {
    body = await renderBody(db, delivery);
    await finish({ body });
  }
  const outcome = await send(deps, delivery, new URL(target.url), body, target.secret, stopping);
  if (stopping.aborted && outcome.status === null) {
    await release(db, [delivery]);
    return;
  }
  if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
    await finish({
      status: 'delivered',
      last_status_code: outcome.status,
      last_error: '',
      delivered_at: new Date(),
    });
    return;
  }
  const schedule = config.webhookRetrySeconds;
  const error = outcome.error || `answered ${outcome.status}`;
  if (delivery.attempts > schedule.length) {
    await finish({ status: 'failed', last_status_code: outcome.status, last_error: error });
  } else {
    const delay = schedule[delivery.attempts - 1] as number;
    await finish({
      last_status_code: outcome.status,
      last_error: error,
      next_attempt_at: new Date(Date.now() + delay * 1000),
    });
  }
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
  const seconds = deps.config.webhookTimeoutSeconds;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new Error(`no answer within ${seconds} s`)),
    seconds * 1000,
  );
  const stop = () => deadline.abort(stopping.reason);
  if (stopping.aborted) stop();
  stopping.addEventListener('abort', stop, { once: true });
  const { signal } = deadline;
  try {
    const resolve = deps.resolve ?? systemResolver;
    let addresses: Promise<[string, ...string[]]>;
    if (deps.config.allowPrivateWebhooks) {
      addresses = addressesOf(url, resolve);
    } else {
      if (url.protocol !== 'https:') throw new UnsafeAddressError('The webhook URL is not https.');
      addresses = publicAddressesOf(url, resolve);
    }
    const [address] = await abortable(addresses, signal);
    const timestamp = String(Math.floor(Date.now() / 1000));
    return await post(
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
      { address, signal },
    );
  } catch (error) {
    return { status: null, error: (error as Error).message };
  } finally {
    clearTimeout(timer);
    stopping.removeEventListener('abort', stop);
  }
}

/** `promise`, or the signal's reason once it aborts (a lookup cannot itself be cancelled). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
