import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { queueForScoring } from '../outbox/scoring-queue.js';
import { refreshOrganisations } from '../segments/membership.js';

/**
 * Attaches a tag, adding it to the workspace's available tags; a name matching an existing
 * tag in another case takes that tag's spelling. Segment membership follows in the same
 * transaction; the score in the scoring job's next round.
 */
export async function attachTag(
  db: Kysely<Database>,
  workspaceId: string,
  organisationId: string,
  name: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`INSERT INTO workspace_tags (workspace_id, name) VALUES (${workspaceId}, ${name})
              ON CONFLICT DO NOTHING`.execute(trx);
    await sql`
      INSERT INTO organisation_tags (workspace_id, organisation_id, name)
      SELECT ${workspaceId}, ${organisationId}, t.name FROM workspace_tags t
      WHERE t.workspace_id = ${workspaceId} AND lower(t.name) = lower(${name})
      ON CONFLICT DO NOTHING`.execute(trx);
    await refreshOrganisations(trx, workspaceId, [organisationId]);
    await queueForScoring(trx, workspaceId, [organisationId]);
  });
}

/** Detaches a tag (any case), segment membership following; false when it was not carried. */
export async function detachTag(
  db: Kysely<Database>,
  workspaceId: string,
  organisationId: string,
  name: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .deleteFrom('organisation_tags')
      .where('workspace_id', '=', workspaceId)
      .where('organisation_id', '=', organisationId)
      .where(sql<boolean>`lower(name) = lower(${name})`)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) return false;
    await refreshOrganisations(trx, workspaceId, [organisationId]);
    await queueForScoring(trx, workspaceId, [organisationId]);
    return true;
  });
}
