import { type Kysely, sql } from 'kysely';

/**
 * Each workspace's longest session, as a bound for reads of the sessions that overlap a
 * range (issue "storage at scale").
 *
 * A session overlaps a range when it started before the range's end and ended at or after
 * its start. Sessions are partitioned by their start, and nothing bounds a session's length
 * (contract §5: it ends after 30 minutes without events, however long it went on), so the
 * reads of a segment's visitors and pages, and of an organisation's key pages for its score,
 * read every month of each organisation's sessions to find the few that end in the range:
 * 82,000 sessions from 13 partitions for a month of 824 organisations on the year-of-traffic
 * bench. Knowing that no session of the workspace is longer than `longest`, they read only
 * those that started at most that long before the range (src/db/partitions.ts,
 * `overlapping`).
 *
 * The bound is kept by statement-level triggers on sessions, so every path that makes a
 * session longer (the writer extending or back-dating it, a direct insert) raises it in the
 * same statement. Nothing lowers it: a bound that is too high costs reading a little more,
 * never a wrong answer. The row is written only when a statement beats it, so writers of a
 * workspace do not queue on it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Writers wait for the commit: a session they wrote meanwhile would escape the first count.
  await sql`LOCK TABLE sessions IN SHARE MODE`.execute(db);
  await sql`
    CREATE TABLE session_lengths (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      longest interval NOT NULL,
      PRIMARY KEY (workspace_id)
    );

    CREATE FUNCTION session_lengths_noted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO session_lengths AS t (workspace_id, longest)
      SELECT n.workspace_id, max(n.ended_at - n.started_at)
      FROM new_rows n
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = n.workspace_id)
      GROUP BY n.workspace_id
      HAVING max(n.ended_at - n.started_at) > coalesce(
        (SELECT l.longest FROM session_lengths l WHERE l.workspace_id = n.workspace_id),
        interval '-1 second')
      ORDER BY 1
      ON CONFLICT (workspace_id) DO UPDATE SET longest = greatest(t.longest, excluded.longest);
      RETURN NULL;
    END $$;

    CREATE TRIGGER session_lengths_inserted AFTER INSERT ON sessions
      REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION session_lengths_noted();
    CREATE TRIGGER session_lengths_updated AFTER UPDATE ON sessions
      REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION session_lengths_noted();

    -- What is stored already (the triggers hold from here to the commit).
    INSERT INTO session_lengths
    SELECT workspace_id, max(ended_at - started_at) FROM sessions GROUP BY 1;
  `.execute(db);
}
