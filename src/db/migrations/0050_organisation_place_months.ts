import { type Kysely, sql } from 'kysely';
import { rewriteFunction } from '../function-text.js';
import { firstSessionsMonth } from '../month-partitioning.js';

/**
 * The organisation places (migration 0026) are kept by the month their sessions started in,
 * with the figures of each place: `organisation_place_months`, partitioned by month like the
 * sessions, replaces `organisation_locations` (issue "storage at scale").
 *
 * Retention took a month's ended sessions away from the figures and the places. It grouped
 * the month's sessions by organisation and place (800,000 sessions into 99,000 places: 1.0 s
 * of a month's 7–11 s on the year-of-traffic bench), updated the places (0.5–0.9 s), and
 * grouped the next month's sessions for each organisation's new first seen (0.4 s). Now a
 * month's places go with the partition it detaches with the sessions', its figures by
 * organisation are summed from that partition's rows, and the next month's first sessions
 * are read from that month's rows (docs/performance.md).
 *
 * - A row: an organisation's ended sessions of one month and one place (city and country,
 *   empty where unknown), their page views, time on site in microseconds, first start and
 *   last end, exact as the figures are. An organisation's places are those of its rows with
 *   a city.
 * - `organisation_figures_add`, which every change of an ended, attributed session goes
 *   through, upserts these rows where it upserted the places: the writer does as many
 *   statements as before. Where sessions went, rows left with none go, and first and last
 *   seen are read again from that month's sessions of the organisation and place where one
 *   that went held them.
 * - The rows are counted from the sessions once, here, with the sessions locked against
 *   writes meanwhile (writers wait; the collector goes on acknowledging into the inbox).
 */
const TABLE = `
  CREATE TABLE organisation_place_months (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    organisation_id uuid NOT NULL,
    month date NOT NULL,
    city text NOT NULL,
    country text NOT NULL,
    sessions integer NOT NULL,
    pageviews bigint NOT NULL,
    micros bigint NOT NULL,
    first_seen timestamptz,
    last_seen timestamptz
  ) PARTITION BY RANGE (month)`;

const MONTH = `date_trunc('month', started AT TIME ZONE 'UTC')::date`;
const KEY = 'workspace_id, organisation_id, month, city, country';

/** The places' upsert: the statement's sessions by month and place instead. */
const PLACES_ADDED =
  /INSERT INTO organisation_locations AS t[\s\S]*?SET sessions = t\.sessions \+ excluded\.sessions;/g;
const ADD = `INSERT INTO organisation_place_months AS t (${KEY}, sessions, pageviews, micros,
        first_seen, last_seen)
      SELECT workspace_id, organisation_id, ${MONTH}, city, country, sum(n), sum(pageviews),
        sum(micros), min(started) FILTER (WHERE n > 0), max(ended) FILTER (WHERE n > 0)
      FROM unnest(workspaces, organisations, cities, countries, starts, ends, counts,
          pageview_counts, micro_counts)
        AS d(workspace_id, organisation_id, city, country, started, ended, n, pageviews, micros)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (${KEY}) DO UPDATE SET
        sessions = t.sessions + excluded.sessions, pageviews = t.pageviews + excluded.pageviews,
        micros = t.micros + excluded.micros,
        first_seen = least(t.first_seen, excluded.first_seen),
        last_seen = greatest(t.last_seen, excluded.last_seen);`;

/** The places' clean-up: the month rows' instead, where their sessions went. */
const PLACES_EMPTIED = /DELETE FROM organisation_locations t[\s\S]*?AND t\.sessions <= 0\) x\)\);/g;
const EMPTIED = `DELETE FROM organisation_place_months t
        WHERE (t.tableoid, t.ctid) IN (
          SELECT x.tableoid, x.ctid
          FROM (SELECT DISTINCT workspace_id, organisation_id, ${MONTH} AS month, city, country
                FROM unnest(workspaces, organisations, cities, countries, starts, counts)
                  AS d(workspace_id, organisation_id, city, country, started, n)
                WHERE n < 0) d
          CROSS JOIN LATERAL (SELECT t.tableoid, t.ctid FROM organisation_place_months t
            WHERE t.workspace_id = d.workspace_id AND t.organisation_id = d.organisation_id
              AND t.month = d.month AND t.city = d.city AND t.country = d.country
              AND t.sessions <= 0) x);`;

/** The end of the figures' clean-up: the month rows' first and last seen follow. */
const AFTER_CLEAN_UP = /AND \(g\.first_seen <= f\.first_seen OR g\.last_seen >= f\.last_seen\);/g;
const CLEAN_UP = `AND (g.first_seen <= f.first_seen OR g.last_seen >= f.last_seen);
      -- The month rows' first and last seen likewise, from the month's ended sessions of the
      -- organisation and place (one month of one organisation's index).
      UPDATE organisation_place_months m SET
        first_seen = CASE WHEN g.first_seen <= m.first_seen
          THEN (SELECT min(s.started_at) FROM sessions s
                WHERE s.workspace_id = m.workspace_id AND s.organisation_id = m.organisation_id
                  AND s.started_at >= m.month::timestamp AT TIME ZONE 'UTC'
                  AND s.started_at < (m.month + interval '1 month')::timestamp AT TIME ZONE 'UTC'
                  AND s.ended_notified AND s.city = m.city AND s.country = m.country)
          ELSE m.first_seen END,
        last_seen = CASE WHEN g.last_seen >= m.last_seen
          THEN (SELECT max(s.ended_at) FROM sessions s
                WHERE s.workspace_id = m.workspace_id AND s.organisation_id = m.organisation_id
                  AND s.started_at >= m.month::timestamp AT TIME ZONE 'UTC'
                  AND s.started_at < (m.month + interval '1 month')::timestamp AT TIME ZONE 'UTC'
                  AND s.ended_notified AND s.city = m.city AND s.country = m.country)
          ELSE m.last_seen END
      FROM (SELECT workspace_id, organisation_id, ${MONTH} AS month, city, country,
              min(started) AS first_seen, max(ended) AS last_seen
            FROM unnest(workspaces, organisations, cities, countries, starts, ends, counts)
              AS d(workspace_id, organisation_id, city, country, started, ended, n)
            WHERE n < 0 GROUP BY 1, 2, 3, 4, 5) g
      WHERE m.workspace_id = g.workspace_id AND m.organisation_id = g.organisation_id
        AND m.month = g.month AND m.city = g.city AND m.country = g.country
        AND (g.first_seen <= m.first_seen OR g.last_seen >= m.last_seen);`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`SET LOCAL lock_timeout = 0`.execute(db);
  // Reads go on; writes of sessions wait until the rows are counted and the function keeps them.
  await sql`LOCK TABLE sessions IN SHARE MODE`.execute(db);
  await sql.raw(TABLE).execute(db);
  await sql`CREATE TABLE organisation_place_months_default
    PARTITION OF organisation_place_months DEFAULT`.execute(db);
  await sql`
    SELECT create_month_partitions('organisation_place_months', ${await firstSessionsMonth(db)}::date,
      ((now() AT TIME ZONE 'UTC') + interval '2 months')::date)`.execute(db);
  await sql`SET LOCAL work_mem = '256MB'`.execute(db);
  await sql`
    INSERT INTO organisation_place_months (${sql.raw(KEY)}, sessions, pageviews, micros,
      first_seen, last_seen)
    SELECT workspace_id, organisation_id,
      date_trunc('month', started_at AT TIME ZONE 'UTC')::date, city, country, count(*),
      sum(pageviews), sum(session_micros(started_at, ended_at)), min(started_at), max(ended_at)
    FROM sessions WHERE ended_notified AND organisation_id IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
  await sql.raw(`ALTER TABLE organisation_place_months ADD PRIMARY KEY (${KEY})`).execute(db);
  await rewriteFunction(db, 'organisation_figures_add', PLACES_ADDED, ADD, 1);
  await rewriteFunction(db, 'organisation_figures_add', PLACES_EMPTIED, EMPTIED, 1);
  await rewriteFunction(db, 'organisation_figures_add', AFTER_CLEAN_UP, CLEAN_UP, 1);
  await sql`DROP TABLE organisation_locations`.execute(db);
  await sql`ANALYZE organisation_place_months`.execute(db);
}
