import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Attaches a tag, adding it to the workspace's available tags; a name matching an existing
 * tag in another case takes that tag's spelling.
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
  });
}

/** Detaches a tag (any case); false when the organisation did not carry it. */
export async function detachTag(
  db: Kysely<Database>,
  workspaceId: string,
  organisationId: string,
  name: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('organisation_tags')
    .where('workspace_id', '=', workspaceId)
    .where('organisation_id', '=', organisationId)
    .where(sql<boolean>`lower(name) = lower(${name})`)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
