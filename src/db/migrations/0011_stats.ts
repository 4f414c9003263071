import { type Kysely, sql } from 'kysely';

/**
 * Daily rollups behind GET .../stats (docs/api.md, docs/performance.md): counting a month of
 * a busy workspace's sessions and page views when asked took 0.5 to 2 s; these tables answer
 * the same in tens of milliseconds.
 *
 * They are kept by statement-level triggers on `sessions` and `events`, not by the code that
 * writes those tables: sessions gain, lose and change organisation in many places (ingest,
 * a visitor identified later, the mend command, an organisation's deletion setting them to
 * NULL, forgetting a person, retention, a workspace's deletion), and a trigger sees every
 * one of them, the foreign keys' own cascades included. A statement's rows are summed
 * before they touch a rollup, so the collector's grouped writes cost one upsert per table
 * per statement.
 *
 * - stats_organisation_days: attributed sessions per UTC day (of started_at) and
 *   organisation; a row per organisation and day gives "organisations that day".
 * - stats_organisation_sources: the same per source, for stats over a segment.
 * - stats_source_days: attributed sessions per day and source, for the workspace's top sources.
 * - stats_page_days: page views per UTC day (of the view itself) and URL, of every visitor,
 *   identified or not, so a later identification never changes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE stats_organisation_days (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      day date NOT NULL,
      organisation_id uuid NOT NULL,
      sessions integer NOT NULL,
      pageviews bigint NOT NULL,
      PRIMARY KEY (workspace_id, day, organisation_id)
    );
    CREATE TABLE stats_organisation_sources (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      organisation_id uuid NOT NULL,
      day date NOT NULL,
      source text NOT NULL,
      sessions integer NOT NULL,
      pageviews bigint NOT NULL,
      PRIMARY KEY (workspace_id, organisation_id, day, source)
    );
    CREATE TABLE stats_source_days (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      day date NOT NULL,
      source text NOT NULL,
      sessions integer NOT NULL,
      PRIMARY KEY (workspace_id, day, source)
    );
    CREATE TABLE stats_page_days (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      day date NOT NULL,
      url text NOT NULL,
      pageviews bigint NOT NULL,
      PRIMARY KEY (workspace_id, day, url)
    );

    -- Adds a statement's summed changes of attributed sessions to the three session rollups.
    -- Rows are upserted in key order, so concurrent writers lock them in the same order and
    -- cannot deadlock on them; a workspace being deleted (its rows going by cascade) is skipped.
    -- plpgsql, not sql: its statements' plans are cached for the session, where a sql
    -- function's are made again on every call (a third of a group write's time here).
    CREATE FUNCTION stats_add_sessions(
      workspaces uuid[], organisations uuid[], days date[], sources text[],
      session_counts integer[], pageview_counts bigint[]
    ) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO stats_organisation_sources AS t
        (workspace_id, organisation_id, day, source, sessions, pageviews)
      SELECT d.* FROM unnest(workspaces, organisations, days, sources, session_counts, pageview_counts)
        AS d(workspace_id, organisation_id, day, source, sessions, pageviews)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (workspace_id, organisation_id, day, source) DO UPDATE
        SET sessions = t.sessions + excluded.sessions, pageviews = t.pageviews + excluded.pageviews;
      INSERT INTO stats_organisation_days AS t (workspace_id, day, organisation_id, sessions, pageviews)
      SELECT workspace_id, day, organisation_id, sum(sessions), sum(pageviews)
      FROM unnest(workspaces, organisations, days, session_counts, pageview_counts)
        AS d(workspace_id, organisation_id, day, sessions, pageviews)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      GROUP BY 1, 2, 3 HAVING sum(sessions) <> 0 OR sum(pageviews) <> 0
      ORDER BY 1, 2, 3
      ON CONFLICT (workspace_id, day, organisation_id) DO UPDATE
        SET sessions = t.sessions + excluded.sessions, pageviews = t.pageviews + excluded.pageviews;
      INSERT INTO stats_source_days AS t (workspace_id, day, source, sessions)
      SELECT workspace_id, day, source, sum(sessions)
      FROM unnest(workspaces, days, sources, session_counts) AS d(workspace_id, day, source, sessions)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      GROUP BY 1, 2, 3 HAVING sum(sessions) <> 0
      ORDER BY 1, 2, 3
      ON CONFLICT (workspace_id, day, source) DO UPDATE SET sessions = t.sessions + excluded.sessions;
      -- Rows that no longer count anything go, so "organisations that day" is a row count.
      -- Only a statement that took sessions away can leave one.
      IF NOT EXISTS (SELECT 1 FROM unnest(session_counts) c WHERE c < 0) THEN
        RETURN;
      END IF;
      DELETE FROM stats_organisation_sources t
      USING unnest(workspaces, organisations, days, sources) AS d(workspace_id, organisation_id, day, source)
      WHERE t.workspace_id = d.workspace_id AND t.organisation_id = d.organisation_id
        AND t.day = d.day AND t.source = d.source AND t.sessions <= 0;
      DELETE FROM stats_organisation_days t
      USING unnest(workspaces, organisations, days) AS d(workspace_id, organisation_id, day)
      WHERE t.workspace_id = d.workspace_id AND t.day = d.day
        AND t.organisation_id = d.organisation_id AND t.sessions <= 0;
      DELETE FROM stats_source_days t
      USING unnest(workspaces, days, sources) AS d(workspace_id, day, source)
      WHERE t.workspace_id = d.workspace_id AND t.day = d.day AND t.source = d.source
        AND t.sessions <= 0;
    END $$;

    CREATE FUNCTION stats_sessions_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM stats_add_sessions(array_agg(workspace_id), array_agg(organisation_id),
        array_agg(day), array_agg(source), array_agg(sessions), array_agg(pageviews))
      FROM (SELECT workspace_id, organisation_id, (started_at AT TIME ZONE 'UTC')::date AS day,
              source, count(*)::int AS sessions, sum(pageviews)::bigint AS pageviews
            FROM new_rows WHERE organisation_id IS NOT NULL GROUP BY 1, 2, 3, 4) d
      HAVING count(*) > 0;
      RETURN NULL;
    END $$;

    CREATE FUNCTION stats_sessions_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM stats_add_sessions(array_agg(workspace_id), array_agg(organisation_id),
        array_agg(day), array_agg(source), array_agg(sessions), array_agg(pageviews))
      FROM (SELECT workspace_id, organisation_id, (started_at AT TIME ZONE 'UTC')::date AS day,
              source, -count(*)::int AS sessions, -sum(pageviews)::bigint AS pageviews
            FROM old_rows WHERE organisation_id IS NOT NULL GROUP BY 1, 2, 3, 4) d
      HAVING count(*) > 0;
      RETURN NULL;
    END $$;

    -- Most updates extend a session (more page views) or touch columns the rollups do not
    -- hold; only the difference between the old and new rows is applied.
    CREATE FUNCTION stats_sessions_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM stats_add_sessions(array_agg(workspace_id), array_agg(organisation_id),
        array_agg(day), array_agg(source), array_agg(sessions), array_agg(pageviews))
      FROM (SELECT workspace_id, organisation_id, day, source,
              sum(sessions)::int AS sessions, sum(pageviews)::bigint AS pageviews
            FROM (SELECT workspace_id, organisation_id, (started_at AT TIME ZONE 'UTC')::date AS day,
                    source, 1 AS sessions, pageviews FROM new_rows
                  WHERE organisation_id IS NOT NULL
                  UNION ALL
                  SELECT workspace_id, organisation_id, (started_at AT TIME ZONE 'UTC')::date,
                    source, -1, -pageviews FROM old_rows
                  WHERE organisation_id IS NOT NULL) c
            GROUP BY 1, 2, 3, 4 HAVING sum(sessions) <> 0 OR sum(pageviews) <> 0) d
      HAVING count(*) > 0;
      RETURN NULL;
    END $$;

    CREATE TRIGGER stats_sessions_inserted AFTER INSERT ON sessions
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_sessions_inserted();
    CREATE TRIGGER stats_sessions_updated AFTER UPDATE ON sessions
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION stats_sessions_updated();
    CREATE TRIGGER stats_sessions_deleted AFTER DELETE ON sessions
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_sessions_deleted();

    CREATE FUNCTION stats_add_pages(workspaces uuid[], days date[], urls text[], counts bigint[])
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO stats_page_days AS t (workspace_id, day, url, pageviews)
      SELECT d.* FROM unnest(workspaces, days, urls, counts) AS d(workspace_id, day, url, pageviews)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      ORDER BY 1, 2, 3
      ON CONFLICT (workspace_id, day, url) DO UPDATE SET pageviews = t.pageviews + excluded.pageviews;
      IF EXISTS (SELECT 1 FROM unnest(counts) c WHERE c < 0) THEN
        DELETE FROM stats_page_days t
        USING unnest(workspaces, days, urls) AS d(workspace_id, day, url)
        WHERE t.workspace_id = d.workspace_id AND t.day = d.day AND t.url = d.url
          AND t.pageviews <= 0;
      END IF;
    END $$;

    CREATE FUNCTION stats_events_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM stats_add_pages(array_agg(workspace_id), array_agg(day), array_agg(url), array_agg(n))
        FROM (SELECT workspace_id, (ts AT TIME ZONE 'UTC')::date AS day, url, count(*) AS n
              FROM new_rows WHERE type = 'pageview' GROUP BY 1, 2, 3) d
        HAVING count(*) > 0;
      END IF;
      IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM stats_add_pages(array_agg(workspace_id), array_agg(day), array_agg(url), array_agg(n))
        FROM (SELECT workspace_id, (ts AT TIME ZONE 'UTC')::date AS day, url, -count(*) AS n
              FROM old_rows WHERE type = 'pageview' GROUP BY 1, 2, 3) d
        HAVING count(*) > 0;
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

    -- What is stored already (the triggers hold the tables' locks from here to the commit).
    INSERT INTO stats_organisation_sources
    SELECT workspace_id, organisation_id, (started_at AT TIME ZONE 'UTC')::date, source,
      count(*), sum(pageviews)
    FROM sessions WHERE organisation_id IS NOT NULL GROUP BY 1, 2, 3, 4;
    INSERT INTO stats_organisation_days
    SELECT workspace_id, day, organisation_id, sum(sessions), sum(pageviews)
    FROM stats_organisation_sources GROUP BY 1, 2, 3;
    INSERT INTO stats_source_days
    SELECT workspace_id, day, source, sum(sessions) FROM stats_organisation_sources GROUP BY 1, 2, 3;
    INSERT INTO stats_page_days
    SELECT workspace_id, (ts AT TIME ZONE 'UTC')::date, url, count(*)
    FROM events e WHERE type = 'pageview'
      AND EXISTS (SELECT 1 FROM workspaces w WHERE w.id = e.workspace_id)
    GROUP BY 1, 2, 3;
  `.execute(db);
}
