import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

export async function listSegments(db: Kysely<Database>, workspaceId: string) {
  return db
    .selectFrom('segments')
    .select(['id', 'name'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}
