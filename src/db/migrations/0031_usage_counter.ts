import { type Kysely, sql } from 'kysely';

/**
 * Each workspace's new organisations of a calendar month (UTC), counted (contract §4).
 *
 * The writer locked the workspace's row to count its organisations of the month and held
 * the lock to its commit, so two batches of a workspace that might gain one ran one after
 * the other. Now a batch reads the count without a lock, creates what the room it read
 * allows, and adds what it created with its commit (workspace_usage_add, the last lock it
 * takes, in workspace order): a count that then passes the limit means another batch took
 * the room meanwhile, and the batch fails as a serialization failure (SQLSTATE 40001), to
 * be done again, when it reads the new count. So no month ever holds more than the limit.
 *
 * - workspace_usage: per workspace and month, the organisations created then that still
 *   exist, as counting the table said before: backfilled from it, and an organisation's
 *   deletion (the mend command) takes it off its month by a trigger.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE workspace_usage (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      month date NOT NULL,
      organisations integer NOT NULL,
      PRIMARY KEY (workspace_id, month)
    );
    INSERT INTO workspace_usage (workspace_id, month, organisations)
    SELECT workspace_id, date_trunc('month', created_at AT TIME ZONE 'UTC')::date, count(*)
    FROM organisations GROUP BY 1, 2;

    -- Adds the organisations this transaction created to this month's counts, and fails if
    -- that takes a workspace past its limit.
    CREATE FUNCTION workspace_usage_add(workspaces uuid[], counts integer[]) RETURNS void
    LANGUAGE plpgsql AS $$
    DECLARE
      over uuid;
    BEGIN
      WITH added AS (
        INSERT INTO workspace_usage AS u (workspace_id, month, organisations)
        SELECT d.workspace_id, date_trunc('month', now() AT TIME ZONE 'UTC')::date, d.n
        FROM unnest(workspaces, counts) AS d(workspace_id, n)
        ORDER BY d.workspace_id
        ON CONFLICT (workspace_id, month) DO UPDATE
          SET organisations = u.organisations + excluded.organisations
        RETURNING u.workspace_id, u.organisations
      )
      SELECT a.workspace_id INTO over FROM added a JOIN workspaces w ON w.id = a.workspace_id
      WHERE a.organisations > w.usage_limit LIMIT 1;
      IF over IS NOT NULL THEN
        RAISE EXCEPTION 'workspace % would pass its usage limit: another transaction took the room', over
          USING ERRCODE = 'serialization_failure';
      END IF;
    END $$;

    CREATE FUNCTION workspace_usage_organisations_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE workspace_usage u SET organisations = u.organisations - d.n
      FROM (SELECT workspace_id, date_trunc('month', created_at AT TIME ZONE 'UTC')::date AS month,
              count(*)::int AS n
            FROM old_rows GROUP BY 1, 2) d
      WHERE u.workspace_id = d.workspace_id AND u.month = d.month;
      RETURN NULL;
    END $$;
    CREATE TRIGGER workspace_usage_organisations_deleted AFTER DELETE ON organisations
      REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION workspace_usage_organisations_deleted();
  `.execute(db);
}
