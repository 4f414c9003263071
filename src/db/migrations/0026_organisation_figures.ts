import { type Kysely, sql } from 'kysely';

/**
 * Each organisation's figures (contract §6: total sessions, unique visitors, page views,
 * time on site, first and last seen, visitor locations) kept for its ended sessions, so that
 * reading a page of organisations no longer counts all their sessions: the 50 busiest of a
 * 1,000,000-session workspace hold 64,000 sessions spread over nearly every page of the
 * table, and counting them took 120 to 160 ms of a list's answer (docs/performance.md,
 * "Lead score"). A reader adds the sessions not yet ended (`NOT ended_notified`, a few
 * hundred in a busy workspace, found by sessions_unnotified_idx) to what is kept
 * (src/sessions/organisation-figures.ts).
 *
 * Only ended sessions are kept because the collector extends a session at every event:
 * keeping figures of live sessions would cost an upsert per organisation in each of its
 * statements, about 10 % of its throughput measured. A session counts here once, when the
 * job that records session.ended marks it (src/sessions/ended.ts), and again only if it
 * changes after that.
 *
 * Like the stats rollups (0011) they are kept by statement-level triggers on `sessions`,
 * which see every change whoever makes it, cascades included; a statement's rows are
 * summed before they touch a figure.
 *
 * - organisation_figures: sessions, page views, time on site in microseconds (exact, so
 *   adding and taking away never drifts), first start, last end.
 * - organisation_visitors, organisation_locations: each organisation's visitors and
 *   (city, country) pairs with their number of sessions, so that a session going away takes
 *   a visitor or a place away only with its last session. Unique visitors are counted from
 *   the first when read (an index-only count: 50 organisations with 64,000 visitors in 5 ms).
 *
 * An ended session that changes (moved by an identification or the mend command, its
 * organisation deleted, deleted itself, or extended by an event arriving late) counts as
 * gone from where it was and new where it is; first and last seen are then read again from
 * the sessions where one that went held one of them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE organisation_figures (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      organisation_id uuid NOT NULL,
      sessions integer NOT NULL,
      pageviews bigint NOT NULL,
      micros bigint NOT NULL,
      first_seen timestamptz,
      last_seen timestamptz,
      PRIMARY KEY (workspace_id, organisation_id)
    );
    CREATE TABLE organisation_visitors (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      organisation_id uuid NOT NULL,
      visitor_id uuid NOT NULL,
      sessions integer NOT NULL,
      PRIMARY KEY (workspace_id, organisation_id, visitor_id)
    );
    CREATE TABLE organisation_locations (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      organisation_id uuid NOT NULL,
      city text NOT NULL,
      country text NOT NULL,
      sessions integer NOT NULL,
      PRIMARY KEY (workspace_id, organisation_id, city, country)
    );

    -- Sessions not ended yet, by organisation: what a reader adds to the kept figures.
    DROP INDEX sessions_unnotified_idx;
    CREATE INDEX sessions_unnotified_idx ON sessions (workspace_id, organisation_id)
      WHERE NOT ended_notified;

    CREATE FUNCTION session_micros(started timestamptz, ended timestamptz) RETURNS bigint
    LANGUAGE sql IMMUTABLE AS $$ SELECT (extract(epoch FROM ended - started) * 1000000)::bigint $$;

    -- Adds a statement's changes of ended, attributed sessions: per row its organisation,
    -- visitor, place, start and end, and whether it came (1) or went (-1), its page views and
    -- microseconds signed alike. Rows are upserted in key order (no deadlock between
    -- writers); a workspace being deleted is skipped.
    CREATE FUNCTION organisation_figures_add(
      workspaces uuid[], organisations uuid[], visitors uuid[], cities text[], countries text[],
      starts timestamptz[], ends timestamptz[], counts integer[], pageview_counts bigint[],
      micro_counts bigint[]
    ) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO organisation_figures AS t
        (workspace_id, organisation_id, sessions, pageviews, micros, first_seen, last_seen)
      SELECT workspace_id, organisation_id, sum(n), sum(pageviews), sum(micros),
        min(started) FILTER (WHERE n > 0), max(ended) FILTER (WHERE n > 0)
      FROM unnest(workspaces, organisations, starts, ends, counts, pageview_counts, micro_counts)
        AS d(workspace_id, organisation_id, started, ended, n, pageviews, micros)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (workspace_id, organisation_id) DO UPDATE SET
        sessions = t.sessions + excluded.sessions, pageviews = t.pageviews + excluded.pageviews,
        micros = t.micros + excluded.micros,
        first_seen = least(t.first_seen, excluded.first_seen),
        last_seen = greatest(t.last_seen, excluded.last_seen);
      INSERT INTO organisation_visitors AS t (workspace_id, organisation_id, visitor_id, sessions)
      SELECT workspace_id, organisation_id, visitor_id, sum(n)
      FROM unnest(workspaces, organisations, visitors, counts)
        AS d(workspace_id, organisation_id, visitor_id, n)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3
      ON CONFLICT (workspace_id, organisation_id, visitor_id) DO UPDATE
        SET sessions = t.sessions + excluded.sessions;
      INSERT INTO organisation_locations AS t (workspace_id, organisation_id, city, country, sessions)
      SELECT workspace_id, organisation_id, city, country, sum(n)
      FROM unnest(workspaces, organisations, cities, countries, counts)
        AS d(workspace_id, organisation_id, city, country, n)
      WHERE city <> '' AND EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4
      ON CONFLICT (workspace_id, organisation_id, city, country) DO UPDATE
        SET sessions = t.sessions + excluded.sessions;
      IF NOT EXISTS (SELECT 1 FROM unnest(counts) c WHERE c < 0) THEN
        RETURN;
      END IF;
      -- Sessions went: what counts nothing any more goes, and first and last seen are read
      -- again where a session that went held one of them (from the ended sessions, which no
      -- longer hold it).
      DELETE FROM organisation_visitors t
      USING unnest(workspaces, organisations, visitors) AS d(workspace_id, organisation_id, visitor_id)
      WHERE t.workspace_id = d.workspace_id AND t.organisation_id = d.organisation_id
        AND t.visitor_id = d.visitor_id AND t.sessions <= 0;
      DELETE FROM organisation_locations t
      USING unnest(workspaces, organisations, cities, countries) AS d(workspace_id, organisation_id, city, country)
      WHERE t.workspace_id = d.workspace_id AND t.organisation_id = d.organisation_id
        AND t.city = d.city AND t.country = d.country AND t.sessions <= 0;
      DELETE FROM organisation_figures t
      USING unnest(workspaces, organisations) AS d(workspace_id, organisation_id)
      WHERE t.workspace_id = d.workspace_id AND t.organisation_id = d.organisation_id
        AND t.sessions <= 0;
      UPDATE organisation_figures f SET
        first_seen = CASE WHEN g.first_seen <= f.first_seen
          THEN (SELECT min(s.started_at) FROM sessions s
                WHERE s.workspace_id = f.workspace_id AND s.organisation_id = f.organisation_id
                  AND s.ended_notified)
          ELSE f.first_seen END,
        last_seen = CASE WHEN g.last_seen >= f.last_seen
          THEN (SELECT max(s.ended_at) FROM sessions s
                WHERE s.workspace_id = f.workspace_id AND s.organisation_id = f.organisation_id
                  AND s.ended_notified)
          ELSE f.last_seen END
      FROM (SELECT workspace_id, organisation_id, min(started) AS first_seen, max(ended) AS last_seen
            FROM unnest(workspaces, organisations, starts, ends, counts)
              AS d(workspace_id, organisation_id, started, ended, n)
            WHERE n < 0 GROUP BY 1, 2) g
      WHERE f.workspace_id = g.workspace_id AND f.organisation_id = g.organisation_id
        AND (g.first_seen <= f.first_seen OR g.last_seen >= f.last_seen);
    END $$;

    CREATE FUNCTION organisation_figures_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM organisation_figures_add(array_agg(workspace_id), array_agg(organisation_id),
        array_agg(visitor_id), array_agg(city), array_agg(country), array_agg(started_at),
        array_agg(ended_at), array_agg(1), array_agg(pageviews::bigint),
        array_agg(session_micros(started_at, ended_at)))
      FROM new_rows WHERE ended_notified AND organisation_id IS NOT NULL
      HAVING count(*) > 0;
      RETURN NULL;
    END $$;

    CREATE FUNCTION organisation_figures_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM organisation_figures_add(array_agg(workspace_id), array_agg(organisation_id),
        array_agg(visitor_id), array_agg(city), array_agg(country), array_agg(started_at),
        array_agg(ended_at), array_agg(-1), array_agg(-pageviews::bigint),
        array_agg(-session_micros(started_at, ended_at)))
      FROM old_rows WHERE ended_notified AND organisation_id IS NOT NULL
      HAVING count(*) > 0;
      RETURN NULL;
    END $$;

    -- The collector's statements extend sessions not ended yet: two scans of a few rows and
    -- nothing else. Otherwise what an ended row was goes and what it is comes.
    CREATE FUNCTION organisation_figures_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM new_rows WHERE ended_notified)
        AND NOT EXISTS (SELECT 1 FROM old_rows WHERE ended_notified) THEN
        RETURN NULL;
      END IF;
      PERFORM organisation_figures_add(array_agg(workspace_id), array_agg(organisation_id),
        array_agg(visitor_id), array_agg(city), array_agg(country), array_agg(started_at),
        array_agg(ended_at), array_agg(n), array_agg(pageviews), array_agg(micros))
      FROM (
        WITH changed AS (
          SELECT o AS old_row, x AS new_row
          FROM new_rows x JOIN old_rows o ON o.workspace_id = x.workspace_id AND o.id = x.id
          WHERE (x.ended_notified, x.organisation_id, x.visitor_id, x.city, x.country,
                 x.started_at, x.ended_at, x.pageviews)
            IS DISTINCT FROM (o.ended_notified, o.organisation_id, o.visitor_id, o.city,
                 o.country, o.started_at, o.ended_at, o.pageviews)
        )
        SELECT (old_row).workspace_id, (old_row).organisation_id, (old_row).visitor_id, (old_row).city,
          (old_row).country, (old_row).started_at, (old_row).ended_at, -1 AS n,
          -(old_row).pageviews::bigint AS pageviews,
          -session_micros((old_row).started_at, (old_row).ended_at) AS micros
        FROM changed WHERE (old_row).ended_notified AND (old_row).organisation_id IS NOT NULL
        UNION ALL
        SELECT (new_row).workspace_id, (new_row).organisation_id, (new_row).visitor_id, (new_row).city,
          (new_row).country, (new_row).started_at, (new_row).ended_at, 1, (new_row).pageviews::bigint,
          session_micros((new_row).started_at, (new_row).ended_at)
        FROM changed WHERE (new_row).ended_notified AND (new_row).organisation_id IS NOT NULL
      ) c
      HAVING count(*) > 0;
      RETURN NULL;
    END $$;

    CREATE TRIGGER organisation_figures_inserted AFTER INSERT ON sessions
      REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION organisation_figures_inserted();
    CREATE TRIGGER organisation_figures_updated AFTER UPDATE ON sessions
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION organisation_figures_updated();
    CREATE TRIGGER organisation_figures_deleted AFTER DELETE ON sessions
      REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION organisation_figures_deleted();

    -- What is stored already (the triggers hold the table's lock from here to the commit).
    INSERT INTO organisation_figures
    SELECT workspace_id, organisation_id, count(*), sum(pageviews),
      sum(session_micros(started_at, ended_at)), min(started_at), max(ended_at)
    FROM sessions WHERE ended_notified AND organisation_id IS NOT NULL GROUP BY 1, 2;
    INSERT INTO organisation_visitors
    SELECT workspace_id, organisation_id, visitor_id, count(*)
    FROM sessions WHERE ended_notified AND organisation_id IS NOT NULL GROUP BY 1, 2, 3;
    INSERT INTO organisation_locations
    SELECT workspace_id, organisation_id, city, country, count(*)
    FROM sessions WHERE ended_notified AND organisation_id IS NOT NULL AND city <> ''
    GROUP BY 1, 2, 3, 4;
  `.execute(db);
}
