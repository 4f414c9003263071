import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/schema.js';

export interface OrganisationKey {
  workspaceId: string;
  domain: string;
  name: string;
}

// An organisation's id never changes, so (workspace, domain) → id can be remembered.
const ids = new LRUCache<string, string>({ max: 100_000 });
const cacheKey = (workspaceId: string, domain: string) => `${workspaceId} ${domain}`;

/**
 * The ids of these organisations in their workspaces, creating those that are new
 * (named from the hint). Runs inside the caller's transaction.
 */
export async function ensureOrganisations(
  db: Kysely<Database>,
  keys: OrganisationKey[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const missing = new Map<string, OrganisationKey>();
  for (const key of keys) {
    const k = cacheKey(key.workspaceId, key.domain);
    const id = ids.get(k);
    if (id) found.set(k, id);
    else missing.set(k, key);
  }
  if (missing.size === 0) return found;
  const wanted = [...missing.values()];
  const remember = (rows: { workspace_id: string; domain: string; id: string }[]) => {
    for (const row of rows) {
      const k = cacheKey(row.workspace_id, row.domain);
      found.set(k, row.id);
      ids.set(k, row.id);
    }
  };
  const select = () =>
    sql<{ workspace_id: string; domain: string; id: string }>`
      SELECT o.workspace_id, o.domain, o.id FROM organisations o
      JOIN unnest(${wanted.map((w) => w.workspaceId)}::uuid[], ${wanted.map((w) => w.domain)}::text[])
        AS k(workspace_id, domain) USING (workspace_id, domain)`.execute(db);
  remember((await select()).rows);
  const absent = wanted.filter((w) => !found.has(cacheKey(w.workspaceId, w.domain)));
  if (absent.length > 0) {
    const inserted = await sql<{ workspace_id: string; domain: string; id: string }>`
      INSERT INTO organisations (workspace_id, id, domain, name)
      SELECT * FROM unnest(${absent.map((a) => a.workspaceId)}::uuid[],
        ${absent.map(() => randomUUID())}::uuid[], ${absent.map((a) => a.domain)}::text[],
        ${absent.map((a) => a.name)}::text[])
      ON CONFLICT (workspace_id, domain) DO NOTHING
      RETURNING workspace_id, domain, id`.execute(db);
    remember(inserted.rows);
    // Another process may have made some in the meantime: read those back.
    if (inserted.rows.length < absent.length) remember((await select()).rows);
  }
  return found;
}

export const organisationKey = cacheKey;
