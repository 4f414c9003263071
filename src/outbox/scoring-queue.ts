import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Organisations whose score may have moved for a reason other than their visits (a tag, a
 * custom value, the owner or status, the profile), queued by whoever changed them for the
 * scoring job (scoring/job.ts), as the segment queue is: producers record, and never
 * import the feature that reacts. Visits need no queue: the job reads the stats rollup.
 */
export async function queueForScoring(
  db: Kysely<Database>,
  workspaceId: string,
  organisationIds: string[],
): Promise<void> {
  if (organisationIds.length === 0) return;
  await sql`
    INSERT INTO scoring_queue (workspace_id, organisation_id)
    SELECT ${workspaceId}, id FROM unnest(${organisationIds}::uuid[]) AS q(id)`.execute(db);
}

/** Queues every organisation with this domain, in every workspace: its profile changed. */
export async function queueDomainForScoring(db: Kysely<Database>, domain: string): Promise<void> {
  await sql`
    INSERT INTO scoring_queue (workspace_id, organisation_id)
    SELECT workspace_id, id FROM organisations WHERE domain = ${domain}`.execute(db);
}

/** Asks the scoring job to score these workspaces (all when none is named) again in full. */
export async function markScoringStale(db: Kysely<Database>, workspaceId?: string): Promise<void> {
  let update = db.deleteFrom('scoring_runs');
  if (workspaceId) update = update.where('workspace_id', '=', workspaceId);
  await update.execute();
}
