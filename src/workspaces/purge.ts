import { type Kysely, sql } from 'kysely';
import { affectedRows } from '../db/affected.js';
import { againIfTransient } from '../db/failures.js';
import type { Database } from '../db/schema.js';
import { dropPendingDeliveries } from '../outbox/deliveries.js';

// Rows per statement: short enough that the collector and the API never wait on a purge.
const BATCH = 5_000;
// Give servers' caches (tracking scripts: 2 s) time to forget the workspace first.
const GRACE_SECONDS = 5;

/**
 * Marks a workspace deleted: at once it is gone from every answer (no members), its
 * tracking script ids are refused by the collector (404, and nothing of them is stored once
 * this has returned) and the pending deliveries of every subscriber and its invites
 * are dropped, so nothing queued is sent afterwards. The purge job removes the rest.
 *
 * It locks rows that the background jobs lock too, in their own order: the outbox's events
 * (fan-out), pending deliveries (the senders), the owners' organisations (ON DELETE SET NULL
 * of the members, against scoring). A deadlock with one of them is not the caller's fault:
 * the whole transaction is done again.
 */
export async function deleteWorkspace(db: Kysely<Database>, workspaceId: string): Promise<void> {
  await againIfTransient(() => markDeleted(db, workspaceId));
}

async function markDeleted(db: Kysely<Database>, workspaceId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // The scripts first: this waits for the collector's writes that hold them (shared
    // advisory locks, taken before any workspace lock; the delete's trigger takes them
    // exclusively, migration 0038), and later writes find them gone.
    await trx.deleteFrom('tracking_scripts').where('workspace_id', '=', workspaceId).execute();
    await trx
      .updateTable('workspaces')
      .set({ deleted_at: new Date() })
      .where('id', '=', workspaceId)
      .execute();
    await trx.deleteFrom('workspace_members').where('workspace_id', '=', workspaceId).execute();
    await trx.deleteFrom('invites').where('workspace_id', '=', workspaceId).execute();
    await dropPendingDeliveries(trx, workspaceId);
  });
}

/**
 * Every table holding tenant rows (a `workspace_id` column), ordered so that a table comes
 * before the tables it references: deleting in this order never trips a foreign key. Read
 * from the catalogue, so a table added later is purged without anyone listing it.
 */
async function tenantTables(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ table: string; references: string[] }>`
    -- As text: node-postgres reads a name[] as one string, whose Set would hold letters.
    SELECT c.relname::text AS table,
      coalesce(array_agg(DISTINCT r.relname::text) FILTER (WHERE r.relname IS NOT NULL
        AND r.relname <> c.relname), '{}'::text[]) AS references
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped
    LEFT JOIN pg_constraint f ON f.conrelid = c.oid AND f.contype = 'f'
    LEFT JOIN pg_class r ON r.oid = f.confrelid
    WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> 'workspaces'
    GROUP BY c.relname`.execute(db);
  const order: string[] = [];
  const pending = new Map(rows.map((row) => [row.table, new Set(row.references)]));
  while (pending.size > 0) {
    // Ready: no other pending table references it.
    const ready = [...pending.keys()].filter(
      (table) => ![...pending.values()].some((references) => references.has(table)),
    );
    if (ready.length === 0) throw new Error('tenant tables reference each other in a cycle');
    for (const table of ready.sort()) {
      order.push(table);
      pending.delete(table);
    }
  }
  return order;
}

/**
 * One round of the purge job: removes the rows of one deleted workspace, table by table in
 * batches (each its own short statement), then the workspace row. Answers the rows removed.
 */
export async function purgeDeletedWorkspace(
  db: Kysely<Database>,
  stopping: () => boolean = () => false,
): Promise<number> {
  const workspace = await db
    .selectFrom('workspaces')
    .select('id')
    .where('deleted_at', '<', sql<Date>`now() - make_interval(secs => ${GRACE_SECONDS})`)
    .orderBy('deleted_at')
    .limit(1)
    .executeTakeFirst();
  if (!workspace) return 0;
  let removed = 0;
  for (const table of await tenantTables(db)) {
    for (;;) {
      if (stopping()) return removed;
      // (tableoid, ctid) names a row even in a partitioned table.
      const result = await sql`
        DELETE FROM ${sql.table(table)} WHERE (tableoid, ctid) IN (
          SELECT tableoid, ctid FROM ${sql.table(table)}
          WHERE workspace_id = ${workspace.id} LIMIT ${BATCH})`.execute(db);
      const count = affectedRows(result);
      removed += count;
      if (count < BATCH) break;
    }
  }
  await db.deleteFrom('workspaces').where('id', '=', workspace.id).execute();
  return removed;
}
