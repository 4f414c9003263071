import { type Kysely, sql } from 'kysely';
import type { CrmName, Database } from '../../db/schema.js';

/**
 * A vendor's documented limit as a token bucket: `burst` calls at once, then `perSecond`.
 * In any window of T seconds it lets through at most burst + perSecond × T calls, which is
 * how each limit below is chosen to stay under the vendor's (with a margin for the jitter
 * between taking a token and the call arriving).
 */
export interface Limit {
  burst: number;
  perSecond: number;
}

/**
 * Takes a token from a connection's bucket, shared by every server through the database,
 * and answers how long to wait before the call (0: at once); null when the connection may
 * no longer send (disconnected, paused, failed, or its workspace deleted), so a batch under
 * way stops at its next call. A token may be taken in advance: the bucket goes below zero
 * and the caller waits until it would have refilled, so concurrent callers queue up in the
 * order they took rather than all retrying at once.
 */
export async function takeToken(
  db: Kysely<Database>,
  workspaceId: string,
  name: CrmName,
  bucket: string,
  limit: Limit,
): Promise<number | null> {
  const { rows } = await sql<{ tokens: number }>`
    INSERT INTO crm_buckets AS b (workspace_id, integration, bucket, tokens, at)
    SELECT c.workspace_id, c.name, ${bucket}, ${limit.burst - 1}, clock_timestamp()
    FROM crm_connections c JOIN workspaces w ON w.id = c.workspace_id
    WHERE c.workspace_id = ${workspaceId} AND c.name = ${name} AND c.enabled
      AND c.failed_at IS NULL AND w.deleted_at IS NULL
    ON CONFLICT (workspace_id, integration, bucket) DO UPDATE SET
      tokens = least(${limit.burst}::float8,
        b.tokens + extract(epoch FROM clock_timestamp() - b.at) * ${limit.perSecond}::float8) - 1,
      at = clock_timestamp()
    RETURNING tokens`.execute(db);
  const row = rows[0];
  if (!row) return null;
  return row.tokens >= 0 ? 0 : Math.ceil((-row.tokens / limit.perSecond) * 1000);
}
