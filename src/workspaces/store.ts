import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { findWorkspace, memberOf, selectWorkspaces, type WorkspaceRow } from '../http/workspace.js';
import { newTrackingScriptId } from './tracking-script.js';

export async function listWorkspaces(
  db: Kysely<Database>,
  userId: string,
  offset: number,
  limit: number,
): Promise<{ total: number; rows: WorkspaceRow[] }> {
  const [count, rows] = await Promise.all([
    db
      .selectFrom('workspaces as w')
      .where(memberOf(userId))
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
    selectWorkspaces(db)
      .where(memberOf(userId))
      .orderBy('w.created_at')
      .orderBy('w.id')
      .offset(offset)
      .limit(limit)
      .execute(),
  ]);
  return { total: Number(count.total), rows };
}

/** Whether a workspace exists, whoever its members are (for the operator's CLI). */
export async function workspaceExists(db: Kysely<Database>, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('workspaces')
    .select('id')
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** A new workspace with a tracking script; its creator is its owner. */
export async function createWorkspace(
  db: Kysely<Database>,
  userId: string,
  fields: { name: string; url: string; usageLimit: number },
): Promise<WorkspaceRow> {
  const id = randomUUID();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('workspaces')
      .values({
        id,
        name: fields.name,
        url: fields.url,
        usage_limit: fields.usageLimit,
      })
      .execute();
    await trx
      .insertInto('tracking_scripts')
      .values({ id: newTrackingScriptId(), workspace_id: id, revoked_at: null })
      .execute();
    await trx
      .insertInto('workspace_members')
      .values({ workspace_id: id, user_id: userId, role: 'owner' })
      .execute();
  });
  return (await findWorkspace(db, userId, id)) as WorkspaceRow;
}

export async function updateUsageLimit(db: Kysely<Database>, id: string, usageLimit: number) {
  await db
    .updateTable('workspaces')
    .set({ usage_limit: usageLimit })
    .where('id', '=', id)
    .execute();
}

/**
 * Revokes the workspace's tracking script; its recorded data stays. The update waits for
 * the collector's writes that hold the script (a shared advisory lock, taken exclusively by
 * a trigger of the update: migration 0038), and later ones find it revoked.
 */
export async function unlinkWorkspace(db: Kysely<Database>, id: string): Promise<void> {
  await db
    .updateTable('tracking_scripts')
    .set({ revoked_at: new Date() })
    .where('workspace_id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Changes the flags given (tracker features, privacy settings); nothing when none are. */
export async function updateTrackerFeatures(
  db: Kysely<Database>,
  id: string,
  flags: Partial<
    Pick<WorkspaceRow, 'form_tracking' | 'click_tracking' | 'download_tracking' | 'honor_gpc'>
  >,
): Promise<void> {
  if (Object.keys(flags).length === 0) return;
  await db.updateTable('workspaces').set(flags).where('id', '=', id).execute();
}

/** Changes the ingest filters given; nothing when none are. */
export async function updateFilters(
  db: Kysely<Database>,
  id: string,
  filters: Partial<Pick<WorkspaceRow, 'hostnames' | 'excluded_ip_ranges'>>,
): Promise<void> {
  if (Object.keys(filters).length === 0) return;
  const { excluded_ip_ranges: ranges, ...rest } = filters;
  await db
    .updateTable('workspaces')
    .set({
      ...rest,
      ...(ranges ? { excluded_ip_ranges: sql<string[]>`${ranges}::cidr[]` } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** The collectors' counts of the workspace's events by drop reason ('' stored), and the last. */
export interface IngestCount {
  reason: string;
  /** Events in the hour buckets overlapping the last 24 hours (up to 25 hours of counts). */
  events: number;
  last_at: Date;
}

/** What the collectors counted for the workspace in the last two days, by reason. */
export async function ingestCounts(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<IngestCount[]> {
  const { rows } = await sql<IngestCount>`
    SELECT reason, sum(events) FILTER (WHERE hour > now() - interval '25 hours')::int AS events,
      max(last_at) AS last_at
    FROM workspace_ingest_hours
    WHERE workspace_id = ${workspaceId} AND hour > now() - interval '2 days'
    GROUP BY reason`.execute(db);
  return rows;
}

/** Adds a tag to the workspace's vocabulary; false when it was there already (any case). */
export async function addAvailableTag(
  db: Kysely<Database>,
  workspaceId: string,
  name: string,
): Promise<boolean> {
  const result = await sql`
    INSERT INTO workspace_tags (workspace_id, name) VALUES (${workspaceId}, ${name})
    ON CONFLICT DO NOTHING`.execute(db);
  return (result.numAffectedRows ?? 0n) > 0n;
}
