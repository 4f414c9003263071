import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/** The queues of organisations to evaluate again: segments' and scoring's. */
export type OrganisationQueue = 'segment_queue' | 'scoring_queue';

/**
 * Takes up to `batch` rows of one workspace off a queue of (workspace_id,
 * organisation_id), in the caller's transaction: rows other servers hold are skipped
 * (SKIP LOCKED), and a rollback puts them back. Answers the workspace and its
 * organisations (each once), or null when nothing is queued.
 */
export async function claimQueued(
  trx: Transaction<Database>,
  queue: OrganisationQueue,
  batch: number,
): Promise<{ workspaceId: string; organisationIds: string[]; taken: number } | null> {
  const table = sql.table(queue);
  const { rows } = await sql<{ workspace_id: string; organisation_id: string }>`
    DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM ${table}
      WHERE workspace_id = (SELECT workspace_id FROM ${table} LIMIT 1 FOR UPDATE SKIP LOCKED)
      LIMIT ${batch} FOR UPDATE SKIP LOCKED))
    RETURNING workspace_id, organisation_id`.execute(trx);
  const workspaceId = rows[0]?.workspace_id;
  if (!workspaceId) return null;
  const organisationIds = [...new Set(rows.map((row) => row.organisation_id))];
  return { workspaceId, organisationIds, taken: rows.length };
}
