import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/schema.js';
import { enqueueIdentified } from '../webhooks/outbox.js';

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
    const creatable = await db.transaction().execute(async (trx) => {
      const allowed = await withinUsageLimits(trx, absent);
      if (allowed.length === 0) return allowed;
      const inserted = await sql<{ workspace_id: string; domain: string; id: string }>`
        INSERT INTO organisations (workspace_id, id, domain, name)
        SELECT * FROM unnest(${allowed.map((a) => a.workspaceId)}::uuid[],
          ${allowed.map(() => randomUUID())}::uuid[], ${allowed.map((a) => a.domain)}::text[],
          ${allowed.map((a) => a.name)}::text[])
        ON CONFLICT (workspace_id, domain) DO NOTHING
        RETURNING workspace_id, domain, id`.execute(trx);
      remember(inserted.rows);
      await enqueueIdentified(trx, inserted.rows);
      return allowed;
    });
    // Another process may have made some in the meantime: read those back.
    if (creatable.some((c) => !found.has(cacheKey(c.workspaceId, c.domain)))) {
      remember((await select()).rows);
    }
  }
  return found;
}

export const organisationKey = cacheKey;

/**
 * The new organisations the workspaces may still create this calendar month (UTC), in the
 * order given (contract §4: `usage_limit` new organisations a month). The workspace rows
 * are locked until the caller's transaction ends, so concurrent writers cannot overshoot.
 */
async function withinUsageLimits(
  trx: Kysely<Database>,
  wanted: OrganisationKey[],
): Promise<OrganisationKey[]> {
  const workspaces = [...new Set(wanted.map((w) => w.workspaceId))];
  const { rows } = await sql<{ id: string; left: number }>`
    SELECT w.id, w.usage_limit - (
      SELECT count(*) FROM organisations o WHERE o.workspace_id = w.id
        AND o.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    )::int AS left
    FROM workspaces w WHERE w.id = ANY(${workspaces}::uuid[])
    ORDER BY w.id
    FOR UPDATE OF w`.execute(trx);
  const left = new Map(rows.map((row) => [row.id, row.left]));
  return wanted.filter((w) => {
    const remaining = left.get(w.workspaceId) ?? 0;
    left.set(w.workspaceId, remaining - 1);
    return remaining > 0;
  });
}
