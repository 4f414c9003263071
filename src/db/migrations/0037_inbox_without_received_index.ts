import { type Kysely, sql } from 'kysely';

/**
 * The inbox loses its index on `received_at`. Nothing reads by it: the backlog gauge sums the
 * whole inbox once a second anyway (ingest/inbox.ts), and workers claim by lane. Every
 * acknowledged request paid for it, one more index entry in the collector's append.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS ingest_inbox_received_idx`.execute(db);
}
