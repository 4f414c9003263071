import { type Kysely, sql } from 'kysely';

/**
 * Uses of rolling allowances (e-mails a user or workspace made the server send, test
 * notifications, demo workspaces made), kept here so that every server counts the same
 * ones. `subject_id` is a user's or a workspace's id; it is deliberately not called
 * `workspace_id`, so that deleting a workspace (whose purge empties every table with that
 * column) does not give its owner a fresh allowance.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE allowance_uses (
      scope text NOT NULL,
      subject_id uuid NOT NULL,
      amount integer NOT NULL CHECK (amount > 0),
      used_at timestamptz NOT NULL
    );
    CREATE INDEX allowance_uses_subject_idx ON allowance_uses (scope, subject_id, used_at);
  `.execute(db);
}
