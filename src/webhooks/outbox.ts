import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * The webhook outbox's one writer. Features hand in the rows that may cause a delivery
 * (SQL of their candidates) inside the statement or transaction of the data that causes
 * them; who receives them is decided here, once.
 */

export type WebhookEvent =
  | 'organisation.identified'
  | 'organisation.returned'
  | 'event.tracked'
  | 'session.ended'
  | 'segment.entered';

export type DeliveryMode = 'session' | 'event';

/** What a delivery may carry besides its workspace and organisation. */
type Carried = 'session_id' | 'event_id' | 'segment_id';
const CARRIED_TYPE: Record<Carried, string> = {
  session_id: 'uuid',
  event_id: 'bigint',
  segment_id: 'uuid',
};

// Who receives a workspace's deliveries: each member with delivery on (contract §12).
const recipients = sql`workspace_members w
  JOIN webhook_configs c ON c.user_id = w.user_id AND c.url IS NOT NULL`;

/**
 * Which deliveries the workspace's members want: `event` when any member is in event mode
 * (per-event candidates are then worth making; `enqueue` still gives each member only its
 * mode's kinds), else `session` when any member has delivery on, else null.
 */
export async function deliveryMode(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<DeliveryMode | null> {
  const { rows } = await sql<{ mode: DeliveryMode }>`
    SELECT c.mode FROM ${recipients} WHERE w.workspace_id = ${workspaceId}
    ORDER BY c.mode = 'event' DESC LIMIT 1`.execute(db);
  return rows[0]?.mode ?? null;
}

/**
 * Candidates of one event: `rows` is a query of workspace_id, organisation_id and the
 * `carried` columns it names.
 */
export function candidates(
  event: WebhookEvent,
  rows: RawBuilder<unknown>,
  carried: Carried[] = [],
): RawBuilder<unknown> {
  const column = (name: Carried) =>
    carried.includes(name) ? sql`r.${sql.ref(name)}` : sql`NULL::${sql.raw(CARRIED_TYPE[name])}`;
  return sql`
    SELECT ${event}::text AS event, r.workspace_id, r.organisation_id,
      ${column('session_id')} AS session_id, ${column('event_id')} AS event_id,
      ${column('segment_id')} AS segment_id
    FROM (${rows}) r`;
}

/** A candidate known in memory (the collector's writer). */
export interface Candidate {
  event: WebhookEvent;
  workspaceId: string;
  organisationId: string;
  sessionId?: string;
  eventId?: string | number;
}

/** Candidates from memory, as SQL for `enqueue`. */
export function candidateValues(list: Candidate[]): RawBuilder<unknown> {
  const column = <T>(pick: (c: Candidate) => T) => list.map(pick);
  return sql`
    SELECT *, NULL::uuid AS segment_id FROM unnest(
      ${column((c) => c.event)}::text[], ${column((c) => c.workspaceId)}::uuid[],
      ${column((c) => c.organisationId)}::uuid[], ${column((c) => c.sessionId ?? null)}::uuid[],
      ${column((c) => c.eventId ?? null)}::bigint[])
    AS v(event, workspace_id, organisation_id, session_id, event_id)`;
}

/**
 * The INSERT (a statement, or a CTE of the caller's statement) of a pending delivery for
 * every candidate and every member of its workspace with delivery on. `candidates` is a query of
 * (event, workspace_id, organisation_id, session_id, event_id, segment_id). session.ended
 * goes only to members in session mode, event.tracked only to those in event mode, the
 * others to both (contract §10). Every delivery is about an organisation.
 */
export function enqueue(rows: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    INSERT INTO webhook_deliveries
      (id, user_id, workspace_id, event, organisation_id, session_id, event_id, segment_id)
    SELECT gen_random_uuid(), w.user_id, d.workspace_id, d.event, d.organisation_id,
           d.session_id, d.event_id, d.segment_id
    FROM (${rows}) d
    JOIN ${recipients} ON w.workspace_id = d.workspace_id
    WHERE d.organisation_id IS NOT NULL
      AND c.mode = CASE d.event WHEN 'session.ended' THEN 'session'
                                WHEN 'event.tracked' THEN 'event' ELSE c.mode END`;
}

/**
 * session.ended: sessions idle for `idleSeconds` (judged by their last event) are marked
 * and, when attributed, each member in session mode gets one delivery for each. One
 * statement, rows claimed with SKIP LOCKED, so several servers never send one twice.
 */
export async function enqueueEndedSessions(
  db: Kysely<Database>,
  idleSeconds: number,
): Promise<number> {
  const result = await sql`
    WITH ended AS (
      UPDATE sessions s SET ended_notified = true
      FROM (SELECT workspace_id, id FROM sessions
            WHERE NOT ended_notified AND ended_at < now() - make_interval(secs => ${idleSeconds})
            ORDER BY ended_at LIMIT 1000 FOR UPDATE SKIP LOCKED) due
      WHERE s.workspace_id = due.workspace_id AND s.id = due.id
      RETURNING s.workspace_id, s.id AS session_id, s.organisation_id
    )
    ${enqueue(candidates('session.ended', sql`SELECT * FROM ended`, ['session_id']))}`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
