import { type Kysely, sql } from 'kysely';

/**
 * The match rate (contract §16) and one population for the Overview (docs/api.md, Stats).
 *
 * - stats_visitor_days: each visitor's sessions per UTC day they touch, and how many are
 *   attributed; stats_visitor_counts: those visitor-days counted so that a day's and a
 *   range's distinct visitors, and identified visitors, are sums of a few rows (see the
 *   tables). A visitor identified later moves their days into the identified, because
 *   the triggers see the sessions' UPDATE.
 * - events.attributed: whether the event's session is attributed to an organisation, so the
 *   top pages can count the views of attributed sessions, as every other figure of the
 *   Overview does. A trigger on sessions keeps it when a session gains or loses its
 *   organisation, and the events' triggers count pages by it. Counting by joining each
 *   event to its session instead would count twice in the collector's write, which inserts
 *   events and changes their session's organisation in one statement (both triggers see
 *   the statement's whole result), and never take a view away in the retention job's,
 *   which deletes sessions and their events in one statement (neither trigger then finds
 *   the other table's row). The collector gives the value; another writer may leave it
 *   out, and the insert trigger then fills it in from the session.
 * - stats_page_days.attributed_pageviews: page views of attributed sessions, by that flag.
 *
 * The backfill rewrites the events of attributed sessions once (in this migration's
 * transaction, with the old triggers dropped first so it costs no rollup work).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TRIGGER stats_events_inserted ON events;
    DROP TRIGGER stats_events_updated ON events;
    DROP TRIGGER stats_events_deleted ON events;
    DROP FUNCTION stats_events_changed();
    DROP FUNCTION stats_add_pages(uuid[], date[], text[], bigint[]);

    -- Old rows read false without being rewritten; the default goes afterwards so that an
    -- insert that leaves the column out gets NULL, which the insert trigger fills.
    ALTER TABLE events ADD COLUMN attributed boolean DEFAULT false;
    UPDATE events e SET attributed = true FROM sessions s
    WHERE s.workspace_id = e.workspace_id AND s.id = e.session_id AND s.organisation_id IS NOT NULL;
    ALTER TABLE events ALTER COLUMN attributed DROP DEFAULT;

    ALTER TABLE stats_page_days ADD COLUMN attributed_pageviews bigint NOT NULL DEFAULT 0;
    UPDATE stats_page_days t SET attributed_pageviews = a.n
    FROM (SELECT workspace_id, (ts AT TIME ZONE 'UTC')::date AS day, url, count(*) AS n
          FROM events WHERE type = 'pageview' AND attributed GROUP BY 1, 2, 3) a
    WHERE t.workspace_id = a.workspace_id AND t.day = a.day AND t.url = a.url;

    -- As 0011's, with the attributed views beside all views. A row goes when it counts no
    -- view at all (attributed views are a part of all views).
    CREATE FUNCTION stats_add_pages(
      workspaces uuid[], days date[], urls text[], counts bigint[], attributed_counts bigint[]
    ) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO stats_page_days AS t (workspace_id, day, url, pageviews, attributed_pageviews)
      SELECT d.* FROM unnest(workspaces, days, urls, counts, attributed_counts)
        AS d(workspace_id, day, url, pageviews, attributed_pageviews)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      ORDER BY 1, 2, 3
      ON CONFLICT (workspace_id, day, url) DO UPDATE
        SET pageviews = t.pageviews + excluded.pageviews,
          attributed_pageviews = t.attributed_pageviews + excluded.attributed_pageviews;
      IF EXISTS (SELECT 1 FROM unnest(counts) c WHERE c < 0) THEN
        DELETE FROM stats_page_days t
        USING unnest(workspaces, days, urls) AS d(workspace_id, day, url)
        WHERE t.workspace_id = d.workspace_id AND t.day = d.day AND t.url = d.url
          AND t.pageviews <= 0;
      END IF;
    END $$;

    -- A row counts once its attributed is known: one inserted without it counts when the
    -- fill-in UPDATE below gives it one (that UPDATE's trigger adds it). The fill-in is the
    -- only join: new rows with two tables' keys, looked up (as in stats_add_visitors).
    CREATE FUNCTION stats_events_changed() RETURNS trigger LANGUAGE plpgsql
    SET enable_hashjoin = off SET enable_mergejoin = off
    AS $$
    BEGIN
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM stats_add_pages(array_agg(workspace_id), array_agg(day), array_agg(url),
          array_agg(n), array_agg(a))
        FROM (SELECT workspace_id, (ts AT TIME ZONE 'UTC')::date AS day, url, count(*) AS n,
                count(*) FILTER (WHERE attributed) AS a
              FROM new_rows WHERE type = 'pageview' AND attributed IS NOT NULL GROUP BY 1, 2, 3) d
        HAVING count(*) > 0;
      END IF;
      IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM stats_add_pages(array_agg(workspace_id), array_agg(day), array_agg(url),
          array_agg(n), array_agg(a))
        FROM (SELECT workspace_id, (ts AT TIME ZONE 'UTC')::date AS day, url, -count(*) AS n,
                -count(*) FILTER (WHERE attributed) AS a
              FROM old_rows WHERE type = 'pageview' AND attributed IS NOT NULL GROUP BY 1, 2, 3) d
        HAVING count(*) > 0;
      END IF;
      -- Nested: a DELETE has no new_rows, and one expression is planned whole.
      IF TG_OP = 'INSERT' THEN
        IF EXISTS (SELECT 1 FROM new_rows WHERE attributed IS NULL) THEN
          UPDATE events e SET attributed = s.organisation_id IS NOT NULL
          FROM new_rows n
          LEFT JOIN sessions s ON s.workspace_id = n.workspace_id AND s.id = n.session_id
          WHERE n.attributed IS NULL AND e.workspace_id = n.workspace_id
            AND e.session_id = n.session_id AND e.id = n.id;
        END IF;
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER stats_events_inserted AFTER INSERT ON events
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_events_changed();
    CREATE TRIGGER stats_events_updated AFTER UPDATE ON events
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION stats_events_changed();
    CREATE TRIGGER stats_events_deleted AFTER DELETE ON events
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_events_changed();

    -- A session that gains or loses its organisation (identified later, a lookup finishing,
    -- mend, its organisation deleted) takes its events along; the events' UPDATE trigger
    -- moves their views. The collector's events of the same statement already carry it.
    -- Nearly every UPDATE of sessions changes no attribution and stops at the first query.
    -- Old and new rows are grouped, not joined: a plan is kept for the connection, and one
    -- made for a few rows would join 100,000 (an organisation's deletion) row by row.
    CREATE FUNCTION events_follow_attribution() RETURNS trigger LANGUAGE plpgsql
    SET enable_hashjoin = off SET enable_mergejoin = off
    AS $$
    DECLARE
      changed_workspaces uuid[];
      changed_sessions uuid[];
      now_attributed boolean[];
    BEGIN
      SELECT array_agg(workspace_id), array_agg(id), array_agg(attributed)
      INTO changed_workspaces, changed_sessions, now_attributed
      FROM (SELECT workspace_id, id, bool_or(attributed) FILTER (WHERE is_new) AS attributed
            FROM (SELECT workspace_id, id, organisation_id IS NOT NULL AS attributed, true AS is_new
                  FROM new_rows
                  UNION ALL
                  SELECT workspace_id, id, organisation_id IS NOT NULL, false FROM old_rows) r
            GROUP BY workspace_id, id
            HAVING bool_or(attributed) FILTER (WHERE is_new)
              IS DISTINCT FROM bool_or(attributed) FILTER (WHERE NOT is_new)) c;
      IF changed_sessions IS NULL THEN
        RETURN NULL;
      END IF;
      -- Through the events' key, session by session, whatever size the table had when the
      -- plan was made.
      UPDATE events e SET attributed = c.attributed
      FROM unnest(changed_workspaces, changed_sessions, now_attributed)
        AS c(workspace_id, session_id, attributed)
      WHERE e.workspace_id = c.workspace_id AND e.session_id = c.session_id
        AND e.attributed IS DISTINCT FROM c.attributed;
      RETURN NULL;
    END $$;
    CREATE TRIGGER events_follow_attribution AFTER UPDATE ON sessions
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION events_follow_attribution();

    -- Each visitor's sessions per UTC day they touch (every day from the session's first
    -- event's to its last's: a session has an event on each, as it ends after 30 idle
    -- minutes), and how many of them are attributed to an organisation.
    CREATE TABLE stats_visitor_days (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      visitor_id uuid NOT NULL,
      day date NOT NULL,
      sessions integer NOT NULL,
      attributed_sessions integer NOT NULL,
      PRIMARY KEY (workspace_id, visitor_id, day)
    );
    -- Distinct counts do not add up over days, and counting a month's visitors one by one
    -- took a second per request on the benchmark. So each visitor-day is counted under the
    -- visitor's previous day (NULL: none), and identified visitor-days (those with an
    -- attributed session) under the previous identified one. A day's visitors are all its
    -- rows; a range's distinct visitors are the rows of its days whose previous day lies
    -- before the range (the visitor's first day in it), whatever the range.
    CREATE TABLE stats_visitor_counts (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      day date NOT NULL,
      identified boolean NOT NULL,
      previous_day date,
      visitors integer NOT NULL,
      UNIQUE NULLS NOT DISTINCT (workspace_id, day, identified, previous_day)
    );

    -- What the given visitors' days count in stats_visitor_counts: each day under the
    -- visitor's previous day, each identified day under the previous identified day.
    CREATE FUNCTION stats_visitor_contributions(workspaces uuid[], visitors uuid[])
    RETURNS TABLE (workspace_id uuid, day date, identified boolean, previous_day date)
    LANGUAGE sql STABLE AS $$
      SELECT t.workspace_id, t.day, false,
        lag(t.day) OVER (PARTITION BY t.workspace_id, t.visitor_id ORDER BY t.day)
      FROM stats_visitor_days t
      JOIN unnest(workspaces, visitors) AS v(workspace_id, visitor_id)
        ON t.workspace_id = v.workspace_id AND t.visitor_id = v.visitor_id
      UNION ALL
      SELECT t.workspace_id, t.day, true,
        lag(t.day) OVER (PARTITION BY t.workspace_id, t.visitor_id ORDER BY t.day)
      FROM stats_visitor_days t
      JOIN unnest(workspaces, visitors) AS v(workspace_id, visitor_id)
        ON t.workspace_id = v.workspace_id AND t.visitor_id = v.visitor_id
      WHERE t.attributed_sessions > 0
    $$;

    -- Adds a statement's summed changes per visitor and day. A visitor's counts depend on
    -- all of their days, so the visitors' rows are locked first (in key order, so writers
    -- never wait in a circle) and read again after the lock; only the collector creates a
    -- visitor's first row, under its lock of the visitor (ingest/store.ts). When no day
    -- appears, goes or changes between identified and not (a visitor's second session of
    -- a day, most of the time), the counts stay as they are. A deleted workspace's visitors
    -- are skipped: nobody reads them again, and the purge removes their rows anyway.
    CREATE FUNCTION stats_add_visitors(
      workspaces uuid[], visitors uuid[], days date[], session_counts integer[],
      attributed_counts integer[]
    ) RETURNS void LANGUAGE plpgsql
    -- Every join here is of the given keys with a table, so look-ups through its key: the
    -- planner takes unnest() for 100 rows and hashed a mid-sized table whole on each call
    -- instead (16 ms a call at 30,000 rows, where a look-up per visitor takes microseconds);
    -- and a plan is kept for the connection, whatever size the table grows to.
    SET enable_hashjoin = off SET enable_mergejoin = off
    AS $$
    DECLARE
      touched_workspaces uuid[];
      touched_visitors uuid[];
      before_workspaces uuid[];
      before_days date[];
      before_identified boolean[];
      before_previous date[];
    BEGIN
      SELECT array_agg(workspace_id ORDER BY workspace_id, visitor_id),
        array_agg(visitor_id ORDER BY workspace_id, visitor_id)
      INTO touched_workspaces, touched_visitors
      FROM (SELECT DISTINCT d.workspace_id, d.visitor_id
            FROM unnest(workspaces, visitors) AS d(workspace_id, visitor_id)
            WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id
                            AND w.deleted_at IS NULL)) v;
      IF touched_visitors IS NULL THEN
        RETURN;
      END IF;
      PERFORM 1 FROM stats_visitor_days t
      JOIN unnest(touched_workspaces, touched_visitors) AS v(workspace_id, visitor_id)
        ON t.workspace_id = v.workspace_id AND t.visitor_id = v.visitor_id
      ORDER BY t.workspace_id, t.visitor_id, t.day FOR UPDATE OF t;

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

      SELECT array_agg(c.workspace_id), array_agg(c.day), array_agg(c.identified),
        array_agg(c.previous_day)
      INTO before_workspaces, before_days, before_identified, before_previous
      FROM stats_visitor_contributions(touched_workspaces, touched_visitors) c;

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
        USING unnest(workspaces, visitors, days) AS d(workspace_id, visitor_id, day)
        WHERE t.workspace_id = d.workspace_id AND t.visitor_id = d.visitor_id AND t.day = d.day
          AND t.sessions <= 0;
      END IF;

      INSERT INTO stats_visitor_counts AS t (workspace_id, day, identified, previous_day, visitors)
      SELECT c.workspace_id, c.day, c.identified, c.previous_day, sum(c.n)
      FROM (SELECT b.*, -1 AS n
            FROM unnest(before_workspaces, before_days, before_identified, before_previous)
              AS b(workspace_id, day, identified, previous_day)
            UNION ALL
            SELECT a.*, 1 FROM stats_visitor_contributions(touched_workspaces, touched_visitors) a) c
      GROUP BY 1, 2, 3, 4 HAVING sum(c.n) <> 0
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (workspace_id, day, identified, previous_day) DO UPDATE
        SET visitors = t.visitors + excluded.visitors;
      -- Only what was counted before can have lost its last visitor (a first visit has none).
      IF before_days IS NOT NULL THEN
        DELETE FROM stats_visitor_counts t
        USING unnest(before_workspaces, before_days, before_identified, before_previous)
          AS b(workspace_id, day, identified, previous_day)
        WHERE t.workspace_id = b.workspace_id AND t.day = b.day AND t.identified = b.identified
          AND t.previous_day IS NOT DISTINCT FROM b.previous_day AND t.visitors <= 0;
      END IF;
    END $$;

    -- The UTC days a session touches.
    CREATE FUNCTION stats_session_days(started timestamptz, ended timestamptz)
    RETURNS SETOF date LANGUAGE sql IMMUTABLE AS $$
      SELECT d::date FROM generate_series((started AT TIME ZONE 'UTC')::date,
        (ended AT TIME ZONE 'UTC')::date, interval '1 day') d
    $$;

    -- Without JIT: the planner takes each session for a thousand days (generate_series'
    -- guess), and compiling for that took 0.3 s of a statement of 5,000 sessions.
    CREATE FUNCTION stats_visitors_inserted() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
    BEGIN
      PERFORM stats_add_visitors(array_agg(workspace_id), array_agg(visitor_id), array_agg(day),
        array_agg(sessions), array_agg(attributed))
      FROM (SELECT workspace_id, visitor_id, day, count(*)::int AS sessions,
              count(organisation_id)::int AS attributed
            FROM new_rows, stats_session_days(started_at, ended_at) day GROUP BY 1, 2, 3) d
      HAVING count(*) > 0;
      RETURN NULL;
    END $$;

    CREATE FUNCTION stats_visitors_deleted() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
    BEGIN
      PERFORM stats_add_visitors(array_agg(workspace_id), array_agg(visitor_id), array_agg(day),
        array_agg(sessions), array_agg(attributed))
      FROM (SELECT workspace_id, visitor_id, day, -count(*)::int AS sessions,
              -count(organisation_id)::int AS attributed
            FROM old_rows, stats_session_days(started_at, ended_at) day GROUP BY 1, 2, 3) d
      HAVING count(*) > 0;
      RETURN NULL;
    END $$;

    -- Most updates extend a session within its day and keep its organisation: old and new
    -- rows cancel out, and nothing is called.
    CREATE FUNCTION stats_visitors_updated() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
    BEGIN
      PERFORM stats_add_visitors(array_agg(workspace_id), array_agg(visitor_id), array_agg(day),
        array_agg(sessions), array_agg(attributed))
      FROM (SELECT workspace_id, visitor_id, day, sum(sessions)::int AS sessions,
              sum(attributed)::int AS attributed
            FROM (SELECT workspace_id, visitor_id, day, 1 AS sessions,
                    (organisation_id IS NOT NULL)::int AS attributed
                  FROM new_rows, stats_session_days(started_at, ended_at) day
                  UNION ALL
                  SELECT workspace_id, visitor_id, day, -1, -(organisation_id IS NOT NULL)::int
                  FROM old_rows, stats_session_days(started_at, ended_at) day) c
            GROUP BY 1, 2, 3 HAVING sum(sessions) <> 0 OR sum(attributed) <> 0) d
      HAVING count(*) > 0;
      RETURN NULL;
    END $$;

    CREATE TRIGGER stats_visitors_inserted AFTER INSERT ON sessions
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_visitors_inserted();
    CREATE TRIGGER stats_visitors_updated AFTER UPDATE ON sessions
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION stats_visitors_updated();
    CREATE TRIGGER stats_visitors_deleted AFTER DELETE ON sessions
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_visitors_deleted();

    INSERT INTO stats_visitor_days (workspace_id, visitor_id, day, sessions, attributed_sessions)
    SELECT workspace_id, visitor_id, day, count(*), count(organisation_id)
    FROM sessions s, stats_session_days(started_at, ended_at) day
    WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = s.workspace_id)
    GROUP BY 1, 2, 3;
    INSERT INTO stats_visitor_counts (workspace_id, day, identified, previous_day, visitors)
    SELECT workspace_id, day, identified, previous_day, count(*)
    FROM (SELECT workspace_id, day, false AS identified,
            lag(day) OVER (PARTITION BY workspace_id, visitor_id ORDER BY day) AS previous_day
          FROM stats_visitor_days
          UNION ALL
          SELECT workspace_id, day, true,
            lag(day) OVER (PARTITION BY workspace_id, visitor_id ORDER BY day)
          FROM stats_visitor_days WHERE attributed_sessions > 0) c
    GROUP BY 1, 2, 3, 4;
  `.execute(db);
}
