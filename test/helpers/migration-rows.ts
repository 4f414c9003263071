import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/**
 * A workspace and one organisation of it, written in plain SQL: a migration test fills a
 * schema older than the one `src/db/schema.ts` describes, so it cannot use the app's stores.
 * The columns are those every schema since the first has had.
 */
export async function workspaceWithOrganisation<DB>(
  db: Kysely<DB>,
  url = 'https://one.example',
): Promise<{ workspace: string; organisation: string }> {
  const workspace = randomUUID();
  const organisation = randomUUID();
  await sql`
    INSERT INTO workspaces (id, name, url, usage_limit)
    VALUES (${workspace}, ${new URL(url).hostname}, ${url}, 1000)`.execute(db);
  await sql`
    INSERT INTO organisations (workspace_id, id, name, domain)
    VALUES (${workspace}, ${organisation}, 'Acme', 'acme.com')`.execute(db);
  return { workspace, organisation };
}
