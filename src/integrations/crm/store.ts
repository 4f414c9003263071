import { type Kysely, sql } from 'kysely';
import type { CrmName, Database } from '../../db/schema.js';
import { qualifies } from './qualify.js';

/** A connection as the API shows it (contract §18); never the token. */
export interface Integration {
  name: CrmName;
  enabled: boolean;
  status: 'not_connected' | 'connected' | 'syncing' | 'disabled' | 'failed';
  connected_at: string | null;
  last_synced_at: string | null;
  /** Companies the CRM holds for the workspace's organisations. */
  synced: number;
  /** Deliveries the CRM would not take (kept with their reason). */
  failed: number;
  last_error: string | null;
  settings: { min_score: number | null; segment_uuid: string | null };
  backfill: { started_at: string; finished_at: string | null; total: number; done: number } | null;
}

type Db = Kysely<Database>;

/** Both CRMs, connected or not, hubspot first. */
export async function listIntegrations(db: Db, workspaceId: string): Promise<Integration[]> {
  const { rows } = await sql<{
    name: CrmName;
    enabled: boolean;
    connected_at: Date;
    last_synced_at: Date | null;
    last_error: string | null;
    failed_at: Date | null;
    min_score: number | null;
    segment_id: string | null;
    backfill_started_at: Date | null;
    backfill_finished_at: Date | null;
    backfill_total: number;
    synced: number;
    failed: number;
    backfill_left: number;
  }>`
    SELECT c.name, c.enabled, c.connected_at, c.last_synced_at, c.last_error, c.failed_at,
      c.min_score, c.segment_id, c.backfill_started_at, c.backfill_finished_at,
      c.backfill_total,
      (SELECT count(*) FROM crm_records r WHERE r.workspace_id = c.workspace_id
        AND r.integration = c.name AND r.kind = 'company' AND r.remote_id IS NOT NULL)::int
        AS synced,
      (SELECT count(*) FROM crm_deliveries d WHERE d.workspace_id = c.workspace_id
        AND d.integration = c.name AND d.status = 'failed')::int AS failed,
      (SELECT count(*) FROM crm_deliveries d WHERE d.workspace_id = c.workspace_id
        AND d.integration = c.name AND d.status = 'pending' AND d.backfill)::int AS backfill_left
    FROM crm_connections c WHERE c.workspace_id = ${workspaceId}`.execute(db);
  const byName = new Map(rows.map((row) => [row.name, row]));
  return (['hubspot', 'pipedrive'] as const).map((name): Integration => {
    const row = byName.get(name);
    if (!row) {
      return {
        name,
        enabled: false,
        status: 'not_connected',
        connected_at: null,
        last_synced_at: null,
        synced: 0,
        failed: 0,
        last_error: null,
        settings: { min_score: null, segment_uuid: null },
        backfill: null,
      };
    }
    const syncing = row.backfill_left > 0;
    return {
      name,
      enabled: row.enabled,
      status: row.failed_at
        ? 'failed'
        : !row.enabled
          ? 'disabled'
          : syncing
            ? 'syncing'
            : 'connected',
      connected_at: row.connected_at.toISOString(),
      last_synced_at: row.last_synced_at?.toISOString() ?? null,
      synced: row.synced,
      failed: row.failed,
      last_error: row.last_error,
      settings: { min_score: row.min_score, segment_uuid: row.segment_id },
      backfill: row.backfill_started_at
        ? {
            started_at: row.backfill_started_at.toISOString(),
            finished_at: syncing
              ? null
              : (row.backfill_finished_at ?? row.backfill_started_at).toISOString(),
            total: row.backfill_total,
            done: Math.max(0, row.backfill_total - row.backfill_left),
          }
        : null,
    };
  });
}

export interface ConnectionChange {
  /** A new token, encrypted: the connection starts afresh (not failed, set up again). */
  tokenEncrypted?: Buffer;
  enabled?: boolean;
  minScore?: number | null;
  segmentId?: string | null;
}

/** Creates or changes a connection; false when there is none and no token to make one. */
export async function saveConnection(
  db: Db,
  workspaceId: string,
  name: CrmName,
  change: ConnectionChange,
): Promise<boolean> {
  const { tokenEncrypted, enabled, minScore, segmentId } = change;
  if (tokenEncrypted) {
    await db
      .insertInto('crm_connections')
      .values({
        workspace_id: workspaceId,
        name,
        token_encrypted: tokenEncrypted,
        enabled: enabled ?? true,
        min_score: minScore ?? null,
        segment_id: segmentId ?? null,
      })
      .onConflict((conflict) =>
        conflict.columns(['workspace_id', 'name']).doUpdateSet({
          token_encrypted: tokenEncrypted,
          failed_at: null,
          last_error: null,
          paused_until: null,
          setup: '{}',
          ...(enabled !== undefined ? { enabled } : {}),
          ...(minScore !== undefined ? { min_score: minScore } : {}),
          ...(segmentId !== undefined ? { segment_id: segmentId } : {}),
        }),
      )
      .execute();
    return true;
  }
  const values = {
    ...(enabled !== undefined ? { enabled } : {}),
    ...(minScore !== undefined ? { min_score: minScore } : {}),
    ...(segmentId !== undefined ? { segment_id: segmentId } : {}),
  };
  const exists = await db
    .selectFrom('crm_connections')
    .select('name')
    .where('workspace_id', '=', workspaceId)
    .where('name', '=', name)
    .executeTakeFirst();
  if (!exists) return false;
  if (Object.keys(values).length > 0) {
    await db
      .updateTable('crm_connections')
      .set(values)
      .where('workspace_id', '=', workspaceId)
      .where('name', '=', name)
      .execute();
  }
  return true;
}

/** Disconnects: the token, what is known of the CRM's objects and everything pending go. */
export async function deleteConnection(
  db: Db,
  workspaceId: string,
  name: CrmName,
): Promise<boolean> {
  const result = await db
    .deleteFrom('crm_connections')
    .where('workspace_id', '=', workspaceId)
    .where('name', '=', name)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Queues every organisation that qualifies now (and its contacts) for the connection, as a
 * backfill whose progress the connection shows; an organisation already pending is marked
 * part of it, not queued twice (so concurrent backfills queue each once). Answers the
 * backfill's size: everything of it still pending.
 */
export async function startBackfill(db: Db, workspaceId: string, name: CrmName): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`
      WITH wanted AS (
        SELECT o.workspace_id, o.id FROM organisations o
        JOIN crm_connections c ON c.workspace_id = o.workspace_id AND c.name = ${name}
        WHERE o.workspace_id = ${workspaceId} AND ${qualifies()}
      ), companies AS (
        INSERT INTO crm_deliveries AS x
          (workspace_id, integration, kind, organisation_id, backfill)
        SELECT workspace_id, ${name}, 'company', id, true FROM wanted
        ON CONFLICT (workspace_id, integration, organisation_id)
          WHERE kind = 'company' AND status = 'pending'
        DO UPDATE SET backfill = true, changes = x.changes + 1
      )
      INSERT INTO crm_deliveries AS x
        (workspace_id, integration, kind, organisation_id, contact_id, backfill)
      SELECT k.workspace_id, ${name}, 'contact', k.organisation_id, k.id, true
      FROM contacts k JOIN wanted w ON w.workspace_id = k.workspace_id AND w.id = k.organisation_id
      ON CONFLICT (workspace_id, integration, contact_id)
        WHERE kind = 'contact' AND status = 'pending'
      DO UPDATE SET backfill = true`.execute(trx);
    const { rows } = await sql<{ total: number }>`
      UPDATE crm_connections SET backfill_started_at = now(), backfill_finished_at = NULL,
        backfill_total = (SELECT count(*) FROM crm_deliveries d
          WHERE d.workspace_id = ${workspaceId} AND d.integration = ${name}
            AND d.status = 'pending' AND d.backfill)
      WHERE workspace_id = ${workspaceId} AND name = ${name}
      RETURNING backfill_total AS total`.execute(trx);
    return rows[0]?.total ?? 0;
  });
}
