import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Writing webhook deliveries into the outbox, always inside the statement or transaction
 * of the data that causes them, and only for operators whose delivery is switched on.
 */

/**
 * session.ended: sessions idle for `idleSeconds` (judged by their last event) are marked
 * and, when attributed and their operator is in session mode, get one delivery each. One
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
      RETURNING s.workspace_id, s.id, s.organisation_id
    )
    INSERT INTO webhook_deliveries (id, operator_id, workspace_id, event, organisation_id, session_id)
    SELECT gen_random_uuid(), w.operator_id, e.workspace_id, 'session.ended', e.organisation_id, e.id
    FROM ended e
    JOIN workspaces w ON w.id = e.workspace_id
    JOIN webhook_configs c ON c.operator_id = w.operator_id AND c.url IS NOT NULL AND c.mode = 'session'
    WHERE e.organisation_id IS NOT NULL`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** organisation.identified for organisations just created (call in their transaction). */
export async function enqueueIdentified(
  trx: Kysely<Database>,
  created: { workspace_id: string; id: string }[],
): Promise<void> {
  if (created.length === 0) return;
  await sql`
    INSERT INTO webhook_deliveries (id, operator_id, workspace_id, event, organisation_id)
    SELECT gen_random_uuid(), w.operator_id, n.workspace_id, 'organisation.identified', n.id
    FROM unnest(${created.map((c) => c.workspace_id)}::uuid[], ${created.map((c) => c.id)}::uuid[])
      AS n(workspace_id, id)
    JOIN workspaces w ON w.id = n.workspace_id
    JOIN webhook_configs c ON c.operator_id = w.operator_id AND c.url IS NOT NULL`.execute(trx);
}
