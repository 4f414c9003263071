import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { eventRows, recordEvents } from '../outbox/events.js';

/** Sessions ended per round. */
const ROUND = 1000;

/**
 * The statement of one round of `recordEndedSessions`. It takes the oldest sessions not yet
 * ended through their own index (migration 0049), so a round reads the sessions it ends and
 * not every session of the last idle period.
 */
export function endedSessionsStatement(idleSeconds: number): RawBuilder<{ ended: number }> {
  return sql<{ ended: number }>`
    WITH ended AS (
      UPDATE sessions s SET ended_notified = true
      FROM (SELECT workspace_id, id FROM sessions
            WHERE NOT ended_notified AND ended_at < now() - make_interval(secs => ${idleSeconds})
            ORDER BY ended_at LIMIT ${sql.lit(ROUND)} FOR UPDATE SKIP LOCKED) due
      WHERE s.workspace_id = due.workspace_id AND s.id = due.id
      RETURNING s.workspace_id, s.id AS session_id, s.organisation_id
    ), recorded AS (${recordEvents(eventRows('session.ended', sql`SELECT * FROM ended`, ['session_id']))})
    SELECT count(*)::int AS ended FROM ended`;
}

/**
 * session.ended: sessions idle for `idleSeconds` (judged by their last event) are marked and,
 * when attributed, each records a `session.ended` event in the outbox. One statement, rows
 * claimed with SKIP LOCKED, so several servers never record one twice. Answers the sessions
 * marked.
 */
export async function recordEndedSessions(
  db: Kysely<Database>,
  idleSeconds: number,
): Promise<number> {
  const { rows } = await endedSessionsStatement(idleSeconds).execute(db);
  return rows[0]?.ended ?? 0;
}
