import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- A segment the worker could not evaluate is skipped and marked: how often in a row, when
    -- last and why (an SQLSTATE, never data), and when it may be tried in full again, so a
    -- broken segment waits its turn instead of being retried first forever.
    ALTER TABLE segments ADD COLUMN failures integer NOT NULL DEFAULT 0;
    ALTER TABLE segments ADD COLUMN failed_at timestamptz;
    ALTER TABLE segments ADD COLUMN last_error text NOT NULL DEFAULT '';
    ALTER TABLE segments ADD COLUMN retry_at timestamptz;
  `.execute(db);
}
