import { type Kysely, sql } from 'kysely';
import { firstSessionsMonth, partitionByMonth } from '../month-partitioning.js';

/**
 * The visitor rollup's days (`stats_visitor_days`, migration 0023) are partitioned by month
 * like the other rollups (0044), so that retention detaches a month of them with the
 * sessions' rather than deleting its rows: a visitor's days are written as the visitor comes
 * back, so each page of the table holds days of every month, and the month's delete read and
 * dirtied all of them (5.3 s of the 17.7 s a month took on the year-of-traffic bench).
 *
 * - The partitions are those the sessions have, from the first to two months ahead, and a
 *   default partition; the partitions job makes the later ones.
 * - The counts by day (`stats_visitor_counts`) stay one table: retention moves the counts of
 *   a month's days when it detaches them.
 * - `stats_apply_visitors` reads all of a visitor's days once, not five times. A read of all
 *   of a visitor's days probes every month's partition; the function read them to lock them,
 *   and twice each (all days, attributed days) before and after its change. It now keeps
 *   what its lock read returns, and computes the counts from it and the change: what the
 *   days are after is what they were and the change. Each write goes to its one partition.
 *   It deletes what it took to nothing by partition and place (0035, 0044).
 * - Its locks stay row locks: one per visitor-day, which a statement of retention or of a
 *   purge takes by the hundred thousand, where advisory locks would fill the lock table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`SET LOCAL lock_timeout = 0`.execute(db);
  await sql`LOCK TABLE stats_visitor_days IN ACCESS EXCLUSIVE MODE`.execute(db);
  await partitionByMonth(db, 'stats_visitor_days', 'day', await firstSessionsMonth(db));
  await sql`
    CREATE OR REPLACE FUNCTION stats_apply_visitors(workspaces uuid[], visitors uuid[],
      days date[], session_counts integer[], attributed_counts integer[])
    RETURNS void LANGUAGE plpgsql
    SET enable_hashjoin = off SET enable_mergejoin = off
    AS $$
    DECLARE
      touched_workspaces uuid[];
      touched_visitors uuid[];
      before_workspaces uuid[];
      before_visitors uuid[];
      before_days date[];
      before_sessions integer[];
      before_attributed integer[];
      emptied tid[];
    BEGIN
      SELECT array_agg(workspace_id), array_agg(visitor_id)
      INTO touched_workspaces, touched_visitors
      FROM (SELECT DISTINCT d.workspace_id, d.visitor_id
            FROM unnest(workspaces, visitors) AS d(workspace_id, visitor_id)
            WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id
                            AND w.deleted_at IS NULL)) v;
      IF touched_visitors IS NULL THEN
        RETURN;
      END IF;
      -- Each visitor's days change one statement at a time, whatever the path: every path
      -- changes them here, and locks them first, in one order. What they are now is what the
      -- counts are computed from.
      SELECT array_agg(workspace_id), array_agg(visitor_id), array_agg(day),
        array_agg(sessions), array_agg(attributed_sessions)
      INTO before_workspaces, before_visitors, before_days, before_sessions, before_attributed
      FROM (SELECT t.workspace_id, t.visitor_id, t.day, t.sessions, t.attributed_sessions
            FROM stats_visitor_days t
            JOIN unnest(touched_workspaces, touched_visitors) AS v(workspace_id, visitor_id)
              ON t.workspace_id = v.workspace_id AND t.visitor_id = v.visitor_id
            ORDER BY t.workspace_id, t.visitor_id, t.day FOR UPDATE OF t) b;

      -- Sessions added to days that have some, and no day's attribution turned: the counts
      -- stay as they are. Each day is found in its own partition.
      IF NOT EXISTS (
        SELECT 1 FROM unnest(workspaces, visitors, days, session_counts, attributed_counts)
          AS d(workspace_id, visitor_id, day, sessions, attributed)
        LEFT JOIN stats_visitor_days t ON t.workspace_id = d.workspace_id
          AND t.visitor_id = d.visitor_id AND t.day = d.day
        WHERE t.day IS NULL OR t.sessions + d.sessions <= 0
          OR (t.attributed_sessions > 0) <> (t.attributed_sessions + d.attributed > 0)
      ) THEN
        UPDATE stats_visitor_days t
        SET sessions = t.sessions + d.sessions,
          attributed_sessions = t.attributed_sessions + d.attributed
        FROM unnest(workspaces, visitors, days, session_counts, attributed_counts)
          AS d(workspace_id, visitor_id, day, sessions, attributed)
        WHERE t.workspace_id = d.workspace_id AND t.visitor_id = d.visitor_id AND t.day = d.day;
        RETURN;
      END IF;

      INSERT INTO stats_visitor_days AS t
        (workspace_id, visitor_id, day, sessions, attributed_sessions)
      SELECT d.* FROM unnest(workspaces, visitors, days, session_counts, attributed_counts)
        AS d(workspace_id, visitor_id, day, sessions, attributed)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id
                      AND w.deleted_at IS NULL)
      ORDER BY 1, 2, 3
      ON CONFLICT (workspace_id, visitor_id, day) DO UPDATE
        SET sessions = t.sessions + excluded.sessions,
          attributed_sessions = t.attributed_sessions + excluded.attributed_sessions;
      -- Only a statement that took sessions away can leave a day without any.
      IF EXISTS (SELECT 1 FROM unnest(session_counts) c WHERE c < 0) THEN
        DELETE FROM stats_visitor_days t
        WHERE (t.tableoid, t.ctid) IN (
          SELECT x.tableoid, x.ctid
          FROM unnest(workspaces, visitors, days) AS d(workspace_id, visitor_id, day)
          CROSS JOIN LATERAL (SELECT t.tableoid, t.ctid FROM stats_visitor_days t
            WHERE t.workspace_id = d.workspace_id AND t.visitor_id = d.visitor_id
              AND t.day = d.day AND t.sessions <= 0) x);
      END IF;

      -- The counts: each day a visitor has counts once with the day before it (all days, and
      -- attributed days alone), and each day it had counts once less. What it has is what it
      -- had and the change: the days were read once, locked.
      WITH before_and_change AS (
        SELECT b.*, 0 AS added, 0 AS added_attributed
        FROM unnest(before_workspaces, before_visitors, before_days, before_sessions,
          before_attributed) AS b(workspace_id, visitor_id, day, sessions, attributed_sessions)
        UNION ALL
        SELECT d.workspace_id, d.visitor_id, d.day, 0, 0, d.sessions, d.attributed
        FROM unnest(workspaces, visitors, days, session_counts, attributed_counts)
          AS d(workspace_id, visitor_id, day, sessions, attributed)
        WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id
                        AND w.deleted_at IS NULL)
      ), visitor_days AS MATERIALIZED (
        SELECT workspace_id, visitor_id, day,
          sum(sessions) > 0 AS had,
          sum(sessions) > 0 AND sum(attributed_sessions) > 0 AS had_named,
          sum(sessions) + sum(added) > 0 AS has,
          sum(sessions) + sum(added) > 0
            AND sum(attributed_sessions) + sum(added_attributed) > 0 AS named
        FROM before_and_change GROUP BY 1, 2, 3
      ), contributions AS (
        SELECT workspace_id, day, false AS identified, lag(day) OVER w AS previous_day, 1 AS n
        FROM visitor_days WHERE has
        WINDOW w AS (PARTITION BY workspace_id, visitor_id ORDER BY day)
        UNION ALL
        SELECT workspace_id, day, true, lag(day) OVER w, 1
        FROM visitor_days WHERE named
        WINDOW w AS (PARTITION BY workspace_id, visitor_id ORDER BY day)
        UNION ALL
        SELECT workspace_id, day, false, lag(day) OVER w, -1
        FROM visitor_days WHERE had
        WINDOW w AS (PARTITION BY workspace_id, visitor_id ORDER BY day)
        UNION ALL
        SELECT workspace_id, day, true, lag(day) OVER w, -1
        FROM visitor_days WHERE had_named
        WINDOW w AS (PARTITION BY workspace_id, visitor_id ORDER BY day)
      ), counted AS (
        INSERT INTO stats_visitor_counts AS t
          (workspace_id, day, identified, previous_day, visitors)
        SELECT workspace_id, day, identified, previous_day, sum(n) FROM contributions
        GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
        ORDER BY 1, 2, 3, 4
        ON CONFLICT (workspace_id, day, identified, previous_day) DO UPDATE
          SET visitors = t.visitors + excluded.visitors
        RETURNING t.ctid AS at, t.visitors AS left_over
      )
      SELECT array_agg(at) FILTER (WHERE left_over <= 0) INTO emptied FROM counted;
      -- A count taken to nothing goes.
      IF emptied IS NOT NULL THEN
        DELETE FROM stats_visitor_counts WHERE ctid = ANY (emptied);
      END IF;
    END $$`.execute(db);
  await sql`DROP FUNCTION stats_visitor_contributions(uuid[], uuid[])`.execute(db);
  await sql`ANALYZE stats_visitor_days`.execute(db);
}
