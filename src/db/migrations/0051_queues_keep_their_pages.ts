import { type Kysely, sql } from 'kysely';

/**
 * The inbox and the outbox's events keep their emptied pages: a vacuum no longer cuts them
 * off the end of the table (`vacuum_truncate = false`, for the workers' vacuum of the inbox
 * and for autovacuum alike).
 *
 * Both are queues: every row is deleted soon after it was written, so a vacuum usually finds
 * the table's last pages empty and tries to give them back, which takes the table's exclusive
 * lock. While an append or a claim holds its own lock, the vacuum asks again every 50 ms for up
 * to five seconds; once it has it, appends and claims wait behind it. On the collector bench
 * with new visitors, the inbox's vacuum every two seconds took 1.13 s a call, against 17 ms
 * without the truncation (docs/performance.md). The pages it gave back were written again
 * within the second; kept, they are reused from the free space map.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['ingest_inbox', 'outbox_events']) {
    await sql`ALTER TABLE ${sql.table(table)} SET (vacuum_truncate = false)`.execute(db);
  }
}
