import { type Kysely, sql, type UpdateObject } from 'kysely';
import { publicOrigin } from '../config.js';
import type { Database } from '../db/schema.js';
import { decrypt } from '../http/keys.js';
import { postChecked } from '../http/outbound/post.js';
import { sign } from '../http/outbound/signing.js';
import { deadline, startDeliveryLoop } from '../outbox/delivery-loop.js';
import type { SubscriberDeps } from '../outbox/events.js';
import { type Outcome, settle } from '../outbox/retry.js';
import { emailOf, slackOf } from './channels.js';
import { type Alert, renderAlert } from './render.js';
import type { DeliveryRow, RuleRow } from './store.js';
import { unsubscribeToken } from './unsubscribe-token.js';

// Deliveries in flight in one server, and for one workspace: a workspace whose receiver or
// mail server is slow holds at most PER_WORKSPACE of the slots, so other alerts still go.
const IN_FLIGHT = 16;
const PER_WORKSPACE = 4;
// Due rows looked at per claim, to share the free slots among workspaces.
const CANDIDATES = 500;
// One e-mail, from connecting to the server's answer to the message, must fit in this.
const MESSAGE_SECONDS = 30;

/**
 * The notification worker: claims due deliveries (SKIP LOCKED, so any number of servers can
 * run it) under a lease of NOTIFICATION_LEASE_SECONDS, renewed every third of it while the
 * attempt runs, and sends each through its rule's channel on its own, in the shared delivery
 * loop; failures are rescheduled on the §10 schedule (WEBHOOK_RETRY_SECONDS).
 */
export function startNotificationWorker(
  deps: SubscriberDeps,
  pollMs = 500,
): { stop(): Promise<void> } {
  const lease = deps.config.notificationLeaseSeconds;
  return startDeliveryLoop<DeliveryRow>(
    {
      inFlight: IN_FLIGHT,
      perTenant: PER_WORKSPACE,
      tenantOf: (delivery) => delivery.workspace_id,
      claim: (free, busy) => claim(deps.db, free, busy, lease),
      attempt: (delivery, signal) => attempt(deps, delivery, signal),
      release: (deliveries) => release(deps.db, deliveries),
      renew: {
        everyMs: (lease * 1000) / 3,
        run: (deliveries) => renew(deps.db, deliveries, lease),
      },
      failed: (error, delivery) =>
        deps.log(
          delivery
            ? `notification delivery ${delivery.id}: ${error.message}`
            : `notification worker: ${error.message}`,
          error,
        ),
    },
    pollMs,
  );
}

/**
 * Claims up to `free` due deliveries, at most PER_WORKSPACE in flight for any workspace
 * (counting `busy`, this server's), leases them and gives each a fresh claim id.
 */
async function claim(
  db: Kysely<Database>,
  free: number,
  busy: ReadonlyMap<string, number>,
  lease: number,
): Promise<DeliveryRow[]> {
  const workspaces = [...busy.keys()];
  const inFlight = workspaces.map((workspace) => busy.get(workspace) as number);
  const { rows } = await sql<DeliveryRow>`
    WITH busy AS (
      SELECT * FROM unnest(${workspaces}::uuid[], ${inFlight}::int[]) AS b(workspace_id, in_flight)
    ), candidates AS (
      SELECT d.workspace_id, d.id,
             row_number() OVER (PARTITION BY d.workspace_id ORDER BY d.next_attempt_at, d.id) AS rank
      FROM (SELECT workspace_id, id, next_attempt_at FROM notification_deliveries
            WHERE status = 'pending' AND next_attempt_at <= now()
              AND workspace_id NOT IN (SELECT workspace_id FROM busy WHERE in_flight >= ${PER_WORKSPACE})
            ORDER BY next_attempt_at LIMIT ${CANDIDATES}) d
    )
    UPDATE notification_deliveries d
    SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${lease}),
        claim_id = gen_random_uuid()
    FROM (SELECT workspace_id, id FROM notification_deliveries
          WHERE (workspace_id, id) IN (
                  SELECT c.workspace_id, c.id FROM candidates c LEFT JOIN busy b USING (workspace_id)
                  WHERE c.rank <= ${PER_WORKSPACE} - coalesce(b.in_flight, 0))
            AND status = 'pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at LIMIT ${free} FOR UPDATE SKIP LOCKED) due
    WHERE d.workspace_id = due.workspace_id AND d.id = due.id
    RETURNING d.*`.execute(db);
  return rows;
}

/** The deliveries' rows as long as their claims hold (in a statement's WHERE). */
const stillClaimed = (deliveries: DeliveryRow[]) => sql<boolean>`
  (workspace_id, id, claim_id) IN (SELECT * FROM unnest(
    ${deliveries.map((d) => d.workspace_id)}::uuid[], ${deliveries.map((d) => d.id)}::uuid[],
    ${deliveries.map((d) => d.claim_id)}::uuid[]))`;

/** Extends the leases still held; answers the deliveries whose claim is gone. */
async function renew(
  db: Kysely<Database>,
  deliveries: DeliveryRow[],
  lease: number,
): Promise<DeliveryRow[]> {
  const { rows } = await sql<{ claim_id: string }>`
    UPDATE notification_deliveries SET next_attempt_at = now() + make_interval(secs => ${lease})
    WHERE ${stillClaimed(deliveries)} AND status = 'pending'
    RETURNING claim_id`.execute(db);
  const held = new Set(rows.map((row) => row.claim_id));
  return deliveries.filter((delivery) => !held.has(delivery.claim_id as string));
}

/** Hands deliveries back, due now and their attempt not counted, for any server to take. */
async function release(db: Kysely<Database>, deliveries: DeliveryRow[]): Promise<void> {
  if (deliveries.length === 0) return;
  await sql`
    UPDATE notification_deliveries
    SET attempts = attempts - 1, next_attempt_at = now(), claim_id = NULL
    WHERE ${stillClaimed(deliveries)} AND status = 'pending'`.execute(db);
}

type Changes = UpdateObject<Database, 'notification_deliveries'>;

/** The delivery is no longer this attempt's: its lease passed on, or it was deleted. */
class NotOurs extends Error {}

async function attempt(
  deps: SubscriberDeps,
  delivery: DeliveryRow,
  signal: AbortSignal,
): Promise<'done' | 'unfinished'> {
  const { db, config } = deps;
  // Every write names the claim, so an attempt that lost it writes nothing and stops.
  const write = async (values: Changes) => {
    const result = await db
      .updateTable('notification_deliveries')
      .set(values)
      .where('workspace_id', '=', delivery.workspace_id)
      .where('id', '=', delivery.id)
      .where('claim_id', '=', delivery.claim_id)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw new NotOurs();
  };
  // The attempt's last write gives up the claim, so no renewal extends a rescheduled retry.
  const finish = (values: Changes) => write({ ...values, claim_id: null });
  try {
    const rule = await db
      .selectFrom('notification_rules as r')
      .innerJoin('workspaces as w', 'w.id', 'r.workspace_id')
      .selectAll('r')
      .where('r.workspace_id', '=', delivery.workspace_id)
      .where('r.id', '=', delivery.rule_id)
      .where('w.deleted_at', 'is', null)
      .executeTakeFirst();
    if (!rule) {
      // The rule is gone, or its workspace was deleted (an alert queued as the delete
      // committed): dropped, not sent.
      await db
        .deleteFrom('notification_deliveries')
        .where('workspace_id', '=', delivery.workspace_id)
        .where('id', '=', delivery.id)
        .where('claim_id', '=', delivery.claim_id)
        .execute();
      return 'done';
    }
    if (!rule.enabled && !delivery.test) {
      await finish({ status: 'failed', last_error: 'The rule was switched off.' });
      return 'done';
    }
    let payload = delivery.payload;
    if (payload === null) {
      payload = JSON.stringify(await renderAlert(db, publicOrigin(config), delivery, rule));
      await write({ payload });
    }
    const alert = JSON.parse(payload) as Alert;
    const outcome =
      rule.channel_type === 'email'
        ? await sendEmails(deps, rule, delivery, alert, signal, write)
        : await post(deps, rule, delivery, alert, payload, signal);
    if (signal.aborted && outcome.status === null) return 'unfinished';
    await finish(settle(outcome, delivery.attempts, config.webhookRetrySeconds));
    return 'done';
  } catch (error) {
    if (error instanceof NotOurs) return 'done';
    throw error;
  }
}

/** A Slack or webhook channel: one POST within WEBHOOK_TIMEOUT_SECONDS. */
async function post(
  deps: SubscriberDeps,
  rule: RuleRow,
  delivery: DeliveryRow,
  alert: Alert,
  payload: string,
  signal: AbortSignal,
): Promise<Outcome> {
  const key = deps.encryptionKey;
  let url: URL;
  let body: string;
  let headers: Record<string, string> = {};
  if (rule.channel_type === 'slack' && rule.slack_url_encrypted) {
    url = new URL(decrypt(key, rule.slack_url_encrypted));
    body = slackOf(alert);
  } else if (rule.channel_type === 'webhook' && rule.webhook_url && rule.webhook_secret_encrypted) {
    const secret = decrypt(key, rule.webhook_secret_encrypted);
    const timestamp = String(Math.floor(Date.now() / 1000));
    url = new URL(rule.webhook_url);
    body = payload;
    headers = {
      'x-footfall-event': delivery.kind,
      'x-footfall-delivery': delivery.id,
      'x-footfall-timestamp': timestamp,
      'x-footfall-signature': sign(secret, `${timestamp}.${payload}`),
    };
  } else {
    return { status: null, error: 'The rule has no usable channel.' };
  }
  const attempt = deadline(signal, deps.config.webhookTimeoutSeconds);
  try {
    return await postChecked(
      url,
      body,
      { 'content-type': 'application/json', 'user-agent': 'Footfall-Notifications/1', ...headers },
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

/**
 * Who an e-mail rule mails: its addresses; with to_owner, the organisation's owner (unless
 * they unsubscribed from the rule), else those addresses; a test of a to_owner rule without
 * addresses goes to the member who made the rule.
 */
async function recipientsOf(
  db: SubscriberDeps['db'],
  rule: RuleRow,
  delivery: DeliveryRow,
): Promise<string[]> {
  if (!rule.email_to_owner) return rule.email_to;
  const unsubscribed = new Set(rule.email_unsubscribed.map((address) => address.toLowerCase()));
  const owner =
    delivery.organisation_id &&
    (await db
      .selectFrom('organisations as o')
      .innerJoin('users as u', 'u.id', 'o.owner_id')
      .select('u.email')
      .where('o.workspace_id', '=', delivery.workspace_id)
      .where('o.id', '=', delivery.organisation_id)
      .executeTakeFirst());
  if (owner && !unsubscribed.has(owner.email.toLowerCase())) return [owner.email];
  if (rule.email_to.length > 0 || !delivery.test || !rule.created_by) return rule.email_to;
  const maker = await db
    .selectFrom('users')
    .select('email')
    .where('id', '=', rule.created_by)
    .executeTakeFirst();
  return maker ? [maker.email] : [];
}

/**
 * One message per address (each carries its own unsubscribe link), to the rule's current
 * addresses not yet sent to, one after another. Each address is recorded as soon as the
 * mail server has accepted its message, so a retry (or, after a crash, another server)
 * sends only to the others. Stops when `signal` aborts: the server stops or the lease is lost.
 */
async function sendEmails(
  deps: SubscriberDeps,
  rule: RuleRow,
  delivery: DeliveryRow,
  alert: Alert,
  signal: AbortSignal,
  write: (values: Changes) => Promise<void>,
): Promise<Outcome> {
  if (!deps.mailer) return { status: null, error: 'E-mail is not set up (SMTP_URL).' };
  const base = publicOrigin(deps.config);
  const errors: string[] = [];
  const recipients = await recipientsOf(deps.db, rule, delivery);
  if (recipients.length === 0) return { status: null, error: 'The organisation has no owner.' };
  for (const address of recipients.filter((to) => !delivery.sent_to.includes(to))) {
    if (signal.aborted) return { status: null, error: (signal.reason as Error).message };
    const token = unsubscribeToken(deps.encryptionKey, rule.id, address);
    const unsubscribe = `${base}/notifications/unsubscribe/${token}`;
    const message = deadline(signal, MESSAGE_SECONDS);
    try {
      await deps.mailer.send({
        to: address,
        ...emailOf(alert, unsubscribe),
        headers: {
          'List-Unsubscribe': `<${unsubscribe}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
        signal: message.signal,
      });
    } catch (error) {
      const reason = message.signal.aborted ? message.signal.reason : error;
      errors.push(`${address}: ${(reason as Error).message}`);
      continue;
    } finally {
      message.clear();
    }
    await write({ sent_to: sql<string[]>`array_append(sent_to, ${address}::text)` });
  }
  if (signal.aborted) return { status: null, error: (signal.reason as Error).message };
  return errors.length === 0
    ? { status: 250, error: '' }
    : { status: null, error: errors.join('; ') };
}
