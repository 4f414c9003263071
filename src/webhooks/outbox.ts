import { randomUUID } from 'node:crypto';
import { type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import type { Database, WebhookDeliveryTable } from '../db/schema.js';
import type { Interest } from '../outbox/events.js';
import { PING_WORKSPACE, pingBody } from './body.js';

/**
 * The webhook deliveries: who receives which of the outbox's events is decided here, once,
 * when the outbox fans them out (outbox/events.ts); a test ping and a redelivery are the
 * operator's own.
 */

/** Every kind a user can choose in `delivery.events` (a test `ping` is not one). */
export const WEBHOOK_EVENTS = [
  'session.ended',
  'event.tracked',
  'organisation.identified',
  'organisation.returned',
  'segment.entered',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

// Who receives a workspace's deliveries: each member with delivery on (contract §12).
const recipients = sql`workspace_members w
  JOIN webhook_configs c ON c.user_id = w.user_id AND c.url IS NOT NULL`;
// Whether the recipient `c` chose to receive `event` (NULL: every kind, contract §15).
const chose = (event: RawBuilder<unknown>) => sql`(c.events IS NULL OR ${event} = ANY (c.events))`;

/**
 * What the workspace's members ask the producers for: `event` when any member is in event
 * mode and chose event.tracked (per-event events are then worth recording; `deliveries`
 * still gives each member only its mode's and choice's kinds), else `session` when any
 * member has delivery on, else null.
 */
export async function webhookInterest(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<Interest | null> {
  const { rows } = await sql<{ mode: Interest }>`
    SELECT CASE WHEN bool_or(c.mode = 'event' AND ${chose(sql`'event.tracked'`)})
                THEN 'event' ELSE 'session' END AS mode
    FROM ${recipients} WHERE w.workspace_id = ${workspaceId}
    HAVING count(*) > 0`.execute(db);
  return rows[0]?.mode ?? null;
}

/**
 * The INSERT (a CTE of the outbox's fan-out: no WITH of its own) of a pending delivery for
 * every event of a webhook kind and every member of its workspace with delivery on.
 * `events` is a query of the outbox's event columns. session.ended goes only to members in
 * session mode, event.tracked only to those in event mode, the others to both (contract
 * §10), and each kind only to members who chose it in `delivery.events` (§15). Every
 * delivery is about an organisation.
 */
export function webhookDeliveries(events: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    INSERT INTO webhook_deliveries
      (id, user_id, workspace_id, event, organisation_id, session_id, event_id, segment_id)
    SELECT gen_random_uuid(), w.user_id, d.workspace_id, d.kind, d.organisation_id,
           d.session_id, d.event_id, d.segment_id
    FROM (${events}) d
    JOIN ${recipients} ON w.workspace_id = d.workspace_id
    WHERE d.organisation_id IS NOT NULL AND d.kind = ANY(${[...WEBHOOK_EVENTS]}::text[])
      AND c.mode = CASE d.kind WHEN 'session.ended' THEN 'session'
                               WHEN 'event.tracked' THEN 'event' ELSE c.mode END
      AND ${chose(sql`d.kind`)}`;
}

export type DeliveryRecord = Selectable<WebhookDeliveryTable>;

/**
 * A test ping for the user, due at once. It is about no workspace and is not filtered by
 * `delivery.events`: asking for it is the choice. Its body is written with it.
 */
export async function enqueuePing(db: Kysely<Database>, userId: string): Promise<DeliveryRecord> {
  const createdAt = new Date();
  return db
    .insertInto('webhook_deliveries')
    .values({
      id: randomUUID(),
      user_id: userId,
      workspace_id: PING_WORKSPACE,
      event: 'ping',
      organisation_id: null,
      session_id: null,
      event_id: null,
      segment_id: null,
      body: pingBody(createdAt),
      created_at: createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** `d` is the user's delivery, of a workspace the user is still a member of (or a ping). */
const ownDelivery = (userId: string, deliveryId: string) =>
  sql`d.id = ${deliveryId} AND d.user_id = ${userId}
    AND (d.workspace_id = ${PING_WORKSPACE} OR EXISTS (
      SELECT 1 FROM workspace_members m JOIN workspaces ws ON ws.id = m.workspace_id
      WHERE m.workspace_id = d.workspace_id AND m.user_id = d.user_id
        AND ws.deleted_at IS NULL))`;

/** Whether the delivery is one `redeliver` would let the user send again. */
export async function isOwnDelivery(
  db: Kysely<Database>,
  userId: string,
  deliveryId: string,
): Promise<boolean> {
  const { rows } = await sql`
    SELECT 1 FROM webhook_deliveries d WHERE ${ownDelivery(userId, deliveryId)}`.execute(db);
  return rows.length > 0;
}

/**
 * Makes one of the user's finished (delivered or failed) deliveries due again: the same
 * row, so the same X-Footfall-Delivery id and the same rendered body, in a new round of
 * attempts with the retry schedule from the start. `attempts`, `last_status_code` and
 * `last_error` describe the current round, so they start afresh. A workspace's delivery
 * needs the user to be a member still, and the workspace not deleted (else: not found).
 * Answers the row, 'pending' when it is still being attempted, or undefined.
 */
export async function redeliver(
  db: Kysely<Database>,
  userId: string,
  deliveryId: string,
): Promise<DeliveryRecord | 'pending' | undefined> {
  const mine = ownDelivery(userId, deliveryId);
  const { rows } = await sql<DeliveryRecord>`
    UPDATE webhook_deliveries d
    SET status = 'pending', attempts = 0, last_status_code = NULL, last_error = '',
        next_attempt_at = now(), delivered_at = NULL,
        redeliveries = d.redeliveries + 1, redelivered_at = now()
    WHERE ${mine} AND d.status <> 'pending'
    RETURNING d.*`.execute(db);
  if (rows[0]) return rows[0];
  const { rows: pending } = await sql`
    SELECT 1 FROM webhook_deliveries d WHERE ${mine} AND d.status = 'pending'`.execute(db);
  return pending.length > 0 ? 'pending' : undefined;
}
