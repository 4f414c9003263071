import { type Kysely, type RawBuilder, sql } from 'kysely';
import { affectedRows } from '../db/affected.js';
import type { Database } from '../db/schema.js';

/**
 * The deliveries of every subscriber, in one place for what removes a tenant's or a
 * person's data: deleting a workspace, `forget` and retention. A subscriber's table is
 * found by its shape (named `*_deliveries`, with `workspace_id`, `session_id` and `status`),
 * read from the catalogue, so a subscriber added later is covered without anyone listing it.
 * The outbox's own pending events are covered with them.
 */

type Db = Kysely<Database>;

/** The subscribers' delivery tables, by name. */
export async function deliveryTables(db: Db): Promise<string[]> {
  const { rows } = await sql<{ table: string }>`
    SELECT c.table_name AS table FROM information_schema.columns c
    JOIN information_schema.tables t USING (table_schema, table_name)
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
      AND c.table_name LIKE '%\\_deliveries'
      AND c.column_name IN ('workspace_id', 'session_id', 'status')
    GROUP BY c.table_name HAVING count(*) = 3
    ORDER BY c.table_name`.execute(db);
  return rows.map((row) => row.table);
}

/** A deleted workspace: no subscriber sends anything more about it (sent ones stay, for now). */
export async function dropPendingDeliveries(trx: Db, workspaceId: string): Promise<void> {
  await sql`DELETE FROM outbox_events WHERE workspace_id = ${workspaceId}`.execute(trx);
  for (const table of await deliveryTables(trx)) {
    await sql`DELETE FROM ${sql.table(table)}
      WHERE workspace_id = ${workspaceId} AND status = 'pending'`.execute(trx);
  }
}

/**
 * A person forgotten: every delivery (pending or sent) about one of `sessionIds`, or whose
 * row holds any of `patterns` (ILIKE, e.g. the rendered body naming them), and the outbox's
 * events of those sessions. Answers the deliveries deleted.
 */
export async function forgetDeliveries(
  trx: Db,
  workspaceId: string,
  sessionIds: string[],
  patterns: string[],
): Promise<number> {
  await sql`DELETE FROM outbox_events WHERE workspace_id = ${workspaceId}
    AND session_id = ANY(${sessionIds}::uuid[])`.execute(trx);
  let deleted = 0;
  for (const table of await deliveryTables(trx)) {
    const result = await sql`DELETE FROM ${sql.table(table)} d
      WHERE d.workspace_id = ${workspaceId}
        AND (d.session_id = ANY(${sessionIds}::uuid[]) OR d::text ILIKE ANY(${patterns}::text[]))`.execute(
      trx,
    );
    deleted += affectedRows(result);
  }
  return deleted;
}

/**
 * CTEs (each led by a comma, to follow the caller's) deleting the deliveries and outbox
 * events of the sessions in the caller's CTE `doomed` (a query of `workspace_id` and `id`),
 * and one more, `deliveries_gone`, counting the deliveries deleted. `tables` from
 * deliveryTables.
 */
export function sessionDeliveriesGone(tables: string[]): RawBuilder<unknown> {
  const gone = tables.map(
    (table, index) => sql`, ${sql.ref(`gone_${index}`)} AS (
      DELETE FROM ${sql.table(table)} x USING doomed d
      WHERE x.workspace_id = d.workspace_id AND x.session_id = d.id RETURNING 1)`,
  );
  const counted = tables.map((_, index) => sql`(SELECT count(*) FROM ${sql.ref(`gone_${index}`)})`);
  return sql`, events_gone_outbox AS (
      DELETE FROM outbox_events x USING doomed d
      WHERE x.workspace_id = d.workspace_id AND x.session_id = d.id RETURNING 1)
    ${sql.join(gone, sql``)}, deliveries_gone AS (
      SELECT (${counted.length > 0 ? sql.join(counted, sql` + `) : sql`0`})::int AS n)`;
}
