import { type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { Config } from '../config.js';
import { runPeriodically } from '../db/periodic.js';
import type { Database, WebhookDeliveryTable } from '../db/schema.js';
import {
  publicAddressesOf,
  type Resolver,
  systemResolver,
  UnsafeAddressError,
} from './address-guard.js';
import { renderBody } from './body.js';
import { enqueueEndedSessions } from './outbox.js';
import { post } from './send.js';
import { sign } from './signing.js';
import { findWebhookConfig } from './store.js';

const TIMEOUT_MS = 10_000;
// A claimed delivery is not claimed again for this long: a worker that dies mid-send
// leaves it to be retried (at least once delivery).
const LEASE_SECONDS = 60;
const BATCH = 20;

export interface WorkerDeps {
  db: Kysely<Database>;
  config: Config;
  encryptionKey: Buffer;
  resolve?: Resolver;
  log: (message: string) => void;
}

type Delivery = Selectable<WebhookDeliveryTable>;

/**
 * The webhook worker: finds ended sessions, then claims due deliveries (SKIP LOCKED, so
 * any number of servers can run it) and sends, signs and reschedules them.
 */
export function startDeliveryWorker(deps: WorkerDeps, pollMs = 500): { stop(): Promise<void> } {
  return runPeriodically(async (stopping) => {
    try {
      await enqueueEndedSessions(deps.db, deps.config.sessionIdleSeconds);
      for (;;) {
        const claimed = await claim(deps.db);
        await Promise.all(claimed.map((delivery) => attempt(deps, delivery)));
        if (claimed.length < BATCH || stopping()) break;
      }
    } catch (error) {
      deps.log(`webhook worker: ${(error as Error).message}`);
    }
  }, pollMs);
}

async function claim(db: Kysely<Database>): Promise<Delivery[]> {
  const { rows } = await sql<Delivery>`
    UPDATE webhook_deliveries d
    SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
    FROM (SELECT id FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED) due
    WHERE d.id = due.id
    RETURNING d.*`.execute(db);
  return rows;
}

async function attempt(deps: WorkerDeps, delivery: Delivery): Promise<void> {
  const { db, config } = deps;
  const finish = (values: Updateable<WebhookDeliveryTable>) =>
    db.updateTable('webhook_deliveries').set(values).where('id', '=', delivery.id).execute();
  const target = await findWebhookConfig(db, deps.encryptionKey, delivery.operator_id);
  if (!target?.url) {
    await finish({ status: 'failed', last_error: 'Webhook delivery was switched off.' });
    return;
  }
  let body = delivery.body;
  if (body === null) {
    body = await renderBody(db, delivery);
    await finish({ body });
  }
  const url = new URL(target.url);
  let address: string | undefined;
  let outcome: { status: number | null; error: string };
  try {
    if (!config.allowPrivateWebhooks) {
      if (url.protocol !== 'https:') throw new UnsafeAddressError('The webhook URL is not https.');
      [address] = await publicAddressesOf(url, deps.resolve ?? systemResolver);
    }
    const timestamp = String(Math.floor(Date.now() / 1000));
    outcome = await post(
      url,
      body,
      {
        'content-type': 'application/json',
        'user-agent': 'Footfall-Webhooks/1',
        'x-footfall-event': delivery.event,
        'x-footfall-delivery': delivery.id,
        'x-footfall-timestamp': timestamp,
        'x-footfall-signature': sign(target.secret, `${timestamp}.${body}`),
      },
      { address, timeoutMs: TIMEOUT_MS },
    );
  } catch (error) {
    outcome = { status: null, error: (error as Error).message };
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
