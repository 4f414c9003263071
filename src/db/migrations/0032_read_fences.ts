import { type Kysely, sql } from 'kysely';

/**
 * Read-your-writes with a read replica (contract §19): after a user's write the primary's WAL
 * position is kept here, and that user's reads go to the replica only once it has replayed
 * that far. A table on the primary, so every api process sees it, whichever one served the
 * write, and token clients (which keep no cookie) are covered as the dashboard is.
 *
 * - read_fences: per user, the primary's WAL insert position after the user's last write.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE read_fences (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      lsn pg_lsn NOT NULL,
      written_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db);
}
