import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { queueDomainForScoring } from './scoring-queue.js';

/**
 * What changed for segments, recorded by whoever changed it (the collector, late
 * attribution, identification, mending, forgetting, retention, imports) in its own
 * statement, for the segment worker (segments/worker.ts) to evaluate: organisations queued
 * in segment_queue, or whole workspaces' segments marked stale. It lives with the outbox,
 * below every feature, for the same reason: producers record, and never import the
 * feature that reacts.
 */

/**
 * An INSERT for a caller's statement (as a CTE) queueing organisations, given by a query
 * of (workspace_id, organisation_id), for the segment worker; workspaces without segments
 * are left out.
 */
export function queueForSegments(organisations: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    INSERT INTO segment_queue (workspace_id, organisation_id)
    SELECT DISTINCT q.workspace_id, q.organisation_id FROM (${organisations}) q
    WHERE q.organisation_id IS NOT NULL
      AND EXISTS (SELECT 1 FROM segments g WHERE g.workspace_id = q.workspace_id)`;
}

/**
 * Queues every organisation with this domain, in every workspace, for the segment worker
 * and the scoring job: its profile changed (a company homepage was read).
 */
export async function queueChangedDomain(db: Kysely<Database>, domain: string): Promise<void> {
  await queueForSegments(sql`
    SELECT workspace_id, id AS organisation_id FROM organisations WHERE domain = ${domain}`).execute(
    db,
  );
  await queueDomainForScoring(db, domain);
}

/** Asks the worker to compute these segments again in full (all when no workspace is named). */
export async function markSegmentsStale(db: Kysely<Database>, workspaceId?: string): Promise<void> {
  let update = db.updateTable('segments').set({ refreshed_at: null });
  if (workspaceId) update = update.where('workspace_id', '=', workspaceId);
  await update.execute();
}
