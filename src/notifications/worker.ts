import { type Kysely, sql, type Updateable } from 'kysely';
import { decrypt } from '../auth/keys.js';
import type { Config } from '../config.js';
import type { Database, NotificationDeliveryTable } from '../db/schema.js';
import type { Mailer } from '../mail/transport.js';
import {
  addressesOf,
  publicAddressesOf,
  type Resolver,
  systemResolver,
  UnsafeAddressError,
} from '../webhooks/address-guard.js';
import { post, type Sent } from '../webhooks/send.js';
import { sign } from '../webhooks/signing.js';
import { emailOf, slackOf } from './channels.js';
import { type Alert, renderAlert } from './render.js';
import type { DeliveryRow, RuleRow } from './store.js';
import { unsubscribeToken } from './unsubscribe-token.js';

// A claimed delivery is not claimed again for this long: a server that dies mid-send
// leaves it to be retried. Longer than an attempt (WEBHOOK_TIMEOUT_SECONDS ≤ 30).
const LEASE_SECONDS = 60;
// Deliveries claimed per round; each is sent on its own, the round waits for all.
const BATCH = 20;

export interface NotificationWorkerDeps {
  db: Kysely<Database>;
  config: Config;
  encryptionKey: Buffer;
  mailer: Mailer | null;
  resolve?: Resolver;
  /** A failure of the worker's own (not of a delivery), with its error. */
  log: (message: string, error: unknown) => void;
}

/** The base of every link in an alert: PUBLIC_URL, else the server on localhost. */
export const publicBase = (config: Config) => config.publicUrl ?? `http://localhost:${config.port}`;

/**
 * One round of the notification worker: claims due deliveries (SKIP LOCKED, so any number
 * of servers can run it), sends each through its rule's channel and reschedules failures
 * on the §10 schedule (WEBHOOK_RETRY_SECONDS). A failing delivery costs only itself.
 */
export async function deliverNotifications(deps: NotificationWorkerDeps): Promise<void> {
  const { rows } = await sql<DeliveryRow>`
    UPDATE notification_deliveries d
    SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
    FROM (SELECT workspace_id, id FROM notification_deliveries
          WHERE status = 'pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED) due
    WHERE d.workspace_id = due.workspace_id AND d.id = due.id
    RETURNING d.*`.execute(deps.db);
  await Promise.all(
    rows.map((delivery) =>
      attempt(deps, delivery).catch((error: Error) =>
        deps.log(`notification delivery ${delivery.id}: ${error.message}`, error),
      ),
    ),
  );
}

async function attempt(deps: NotificationWorkerDeps, delivery: DeliveryRow): Promise<void> {
  const { db, config } = deps;
  const finish = (values: Updateable<NotificationDeliveryTable>) =>
    db
      .updateTable('notification_deliveries')
      .set(values)
      .where('workspace_id', '=', delivery.workspace_id)
      .where('id', '=', delivery.id)
      .execute();
  const rule = await db
    .selectFrom('notification_rules')
    .selectAll()
    .where('workspace_id', '=', delivery.workspace_id)
    .where('id', '=', delivery.rule_id)
    .executeTakeFirst();
  if (!rule) return; // deleted meanwhile: its deliveries went with it
  if (!rule.enabled && !delivery.test) {
    await finish({ status: 'failed', last_error: 'The rule was switched off.' });
    return;
  }
  let payload = delivery.payload;
  if (payload === null) {
    payload = JSON.stringify(await renderAlert(db, publicBase(config), delivery, rule));
    await finish({ payload });
  }
  const alert = JSON.parse(payload) as Alert;
  const outcome = await send(deps, rule, delivery, alert, payload);
  if (outcome.sentTo) await finish({ sent_to: outcome.sentTo });
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

type Outcome = Sent & { sentTo?: string[] };

function send(
  deps: NotificationWorkerDeps,
  rule: RuleRow,
  delivery: DeliveryRow,
  alert: Alert,
  payload: string,
): Promise<Outcome> {
  const key = deps.encryptionKey;
  if (rule.channel_type === 'email') return sendEmails(deps, rule, delivery, alert);
  if (rule.channel_type === 'slack' && rule.slack_url_encrypted) {
    const url = decrypt(key, rule.slack_url_encrypted);
    return postGuarded(deps, new URL(url), slackOf(alert), {});
  }
  if (rule.channel_type === 'webhook' && rule.webhook_url && rule.webhook_secret_encrypted) {
    const secret = decrypt(key, rule.webhook_secret_encrypted);
    const timestamp = String(Math.floor(Date.now() / 1000));
    return postGuarded(deps, new URL(rule.webhook_url), payload, {
      'x-footfall-event': delivery.kind,
      'x-footfall-delivery': delivery.id,
      'x-footfall-timestamp': timestamp,
      'x-footfall-signature': sign(secret, `${timestamp}.${payload}`),
    });
  }
  return Promise.resolve({ status: null, error: 'The rule has no usable channel.' });
}

/**
 * One message per address (each carries its own unsubscribe link), to the rule's current
 * addresses not yet sent to: a retry never sends anyone a second copy.
 */
async function sendEmails(
  deps: NotificationWorkerDeps,
  rule: RuleRow,
  delivery: DeliveryRow,
  alert: Alert,
): Promise<Outcome> {
  if (!deps.mailer) return { status: null, error: 'E-mail is not set up (SMTP_URL).' };
  const sentTo = [...delivery.sent_to];
  const base = publicBase(deps.config);
  const errors: string[] = [];
  for (const address of rule.email_to.filter((to) => !sentTo.includes(to))) {
    const token = unsubscribeToken(deps.encryptionKey, rule.id, address);
    const unsubscribe = `${base}/notifications/unsubscribe/${token}`;
    try {
      await deps.mailer.send({
        to: address,
        ...emailOf(alert, unsubscribe),
        headers: {
          'List-Unsubscribe': `<${unsubscribe}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
      });
      sentTo.push(address);
    } catch (error) {
      errors.push(`${address}: ${(error as Error).message}`);
    }
  }
  return errors.length === 0
    ? { status: 250, error: '', sentTo }
    : { status: null, error: errors.join('; '), sentTo };
}

/**
 * POSTs JSON within the webhook deadline through the webhook address guard (https and
 * public unless ALLOW_PRIVATE_WEBHOOKS), connecting to the address that was checked.
 */
async function postGuarded(
  deps: NotificationWorkerDeps,
  url: URL,
  body: string,
  headers: Record<string, string>,
): Promise<Sent> {
  const seconds = deps.config.webhookTimeoutSeconds;
  const signal = AbortSignal.timeout(seconds * 1000);
  try {
    const resolve = deps.resolve ?? systemResolver;
    let addresses: Promise<[string, ...string[]]>;
    if (deps.config.allowPrivateWebhooks) {
      addresses = addressesOf(url, resolve);
    } else {
      if (url.protocol !== 'https:') throw new UnsafeAddressError('The URL is not https.');
      addresses = publicAddressesOf(url, resolve);
    }
    const [address] = await addresses;
    return await post(
      url,
      body,
      { 'content-type': 'application/json', 'user-agent': 'Footfall-Notifications/1', ...headers },
      { address, signal },
    );
  } catch (error) {
    return { status: null, error: (error as Error).message };
  }
}
