import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';

// Each rollup beside the same figures counted from the sessions and events (deleted
// workspaces aside: their rows are the purge's).
const LIVE = `workspace_id IN (SELECT id FROM workspaces WHERE deleted_at IS NULL)`;
const sessionDays = `
  SELECT s.workspace_id, s.visitor_id, d::date AS day, count(*)::bigint AS sessions,
    count(s.organisation_id)::bigint AS attributed
  FROM sessions s, generate_series((s.started_at AT TIME ZONE 'UTC')::date,
    (s.ended_at AT TIME ZONE 'UTC')::date, interval '1 day') d
  WHERE s.${LIVE} GROUP BY 1, 2, 3`;
const ended = `FROM sessions WHERE ended_notified AND organisation_id IS NOT NULL AND ${LIVE}`;
export const ROLLUPS: Record<string, { kept: string; counted: string }> = {
  // The organisation figures count ended sessions (organisation-figures.ts).
  organisation_figures: {
    kept: `SELECT workspace_id, organisation_id, sessions::bigint, pageviews::bigint, micros::bigint,
        first_seen, last_seen
      FROM organisation_figures WHERE ${LIVE}`,
    counted: `SELECT workspace_id, organisation_id, count(*)::bigint, sum(pageviews)::bigint,
        sum(session_micros(started_at, ended_at))::bigint, min(started_at), max(ended_at)
      ${ended} GROUP BY 1, 2`,
  },
  // And by the month the sessions started in and their place (migration 0050).
  organisation_place_months: {
    kept: `SELECT workspace_id, organisation_id, month, city, country, sessions::bigint,
        pageviews::bigint, micros::bigint, first_seen, last_seen
      FROM organisation_place_months WHERE ${LIVE}`,
    counted: `SELECT workspace_id, organisation_id,
        date_trunc('month', started_at AT TIME ZONE 'UTC')::date, city, country, count(*)::bigint,
        sum(pageviews)::bigint, sum(session_micros(started_at, ended_at))::bigint,
        min(started_at), max(ended_at)
      ${ended} GROUP BY 1, 2, 3, 4, 5`,
  },
  stats_organisation_sources: {
    kept: `SELECT workspace_id, organisation_id, day, source, sessions::bigint, pageviews::bigint
      FROM stats_organisation_sources WHERE ${LIVE}`,
    counted: `SELECT workspace_id, organisation_id, (started_at AT TIME ZONE 'UTC')::date, source,
        count(*)::bigint, sum(pageviews)::bigint
      FROM sessions WHERE organisation_id IS NOT NULL AND ${LIVE} GROUP BY 1, 2, 3, 4`,
  },
  stats_organisation_days: {
    kept: `SELECT workspace_id, day, organisation_id, sessions::bigint, pageviews::bigint
      FROM stats_organisation_days WHERE ${LIVE}`,
    counted: `SELECT workspace_id, (started_at AT TIME ZONE 'UTC')::date, organisation_id,
        count(*)::bigint, sum(pageviews)::bigint
      FROM sessions WHERE organisation_id IS NOT NULL AND ${LIVE} GROUP BY 1, 2, 3`,
  },
  stats_source_days: {
    kept: `SELECT workspace_id, day, source, sessions::bigint FROM stats_source_days WHERE ${LIVE}`,
    counted: `SELECT workspace_id, (started_at AT TIME ZONE 'UTC')::date, source, count(*)::bigint
      FROM sessions WHERE organisation_id IS NOT NULL AND ${LIVE} GROUP BY 1, 2, 3`,
  },
  stats_page_days: {
    kept: `SELECT workspace_id, day, url, pageviews::bigint, attributed_pageviews::bigint
      FROM stats_page_days WHERE ${LIVE}`,
    // Attributed: the view's session has an organisation (whatever the event's own flag says).
    counted: `SELECT e.workspace_id, (e.ts AT TIME ZONE 'UTC')::date, e.url, count(*)::bigint,
        count(s.organisation_id)::bigint
      FROM events e LEFT JOIN sessions s ON s.workspace_id = e.workspace_id AND s.id = e.session_id
      WHERE e.type = 'pageview' AND e.${LIVE} GROUP BY 1, 2, 3`,
  },
  // The month and workspace-day rollups of the daily ones (migration 0039), recounted from
  // the sessions and events as the daily ones are.
  stats_workspace_days: {
    kept: `SELECT workspace_id, day, sessions::bigint, pageviews::bigint, organisations::bigint
      FROM stats_workspace_days WHERE ${LIVE}`,
    counted: `SELECT workspace_id, (started_at AT TIME ZONE 'UTC')::date, count(*)::bigint,
        sum(pageviews)::bigint, count(DISTINCT organisation_id)::bigint
      FROM sessions WHERE organisation_id IS NOT NULL AND ${LIVE} GROUP BY 1, 2`,
  },
  stats_organisation_months: {
    kept: `SELECT workspace_id, month, organisation_id, sessions::bigint, pageviews::bigint,
        days::bigint
      FROM stats_organisation_months WHERE ${LIVE}`,
    counted: `SELECT workspace_id, date_trunc('month', started_at AT TIME ZONE 'UTC')::date,
        organisation_id, count(*)::bigint, sum(pageviews)::bigint,
        count(DISTINCT (started_at AT TIME ZONE 'UTC')::date)::bigint
      FROM sessions WHERE organisation_id IS NOT NULL AND ${LIVE} GROUP BY 1, 2, 3`,
  },
  stats_page_months: {
    kept: `SELECT workspace_id, month, url, pageviews::bigint, attributed_pageviews::bigint,
        days::bigint
      FROM stats_page_months WHERE ${LIVE}`,
    counted: `SELECT e.workspace_id, date_trunc('month', e.ts AT TIME ZONE 'UTC')::date, e.url,
        count(*)::bigint, count(s.organisation_id)::bigint,
        count(DISTINCT (e.ts AT TIME ZONE 'UTC')::date)::bigint
      FROM events e LEFT JOIN sessions s ON s.workspace_id = e.workspace_id AND s.id = e.session_id
      WHERE e.type = 'pageview' AND e.${LIVE} GROUP BY 1, 2, 3`,
  },
  stats_visitor_days: {
    kept: `SELECT workspace_id, visitor_id, day, sessions::bigint, attributed_sessions::bigint
      FROM stats_visitor_days WHERE ${LIVE}`,
    counted: sessionDays,
  },
  stats_visitor_counts: {
    kept: `SELECT workspace_id, day, identified, previous_day, visitors::bigint
      FROM stats_visitor_counts WHERE ${LIVE}`,
    counted: `WITH d AS (${sessionDays})
      SELECT workspace_id, day, identified, previous_day, count(*)::bigint
      FROM (SELECT workspace_id, day, false AS identified,
              lag(day) OVER (PARTITION BY workspace_id, visitor_id ORDER BY day) AS previous_day
            FROM d
            UNION ALL
            SELECT workspace_id, day, true,
              lag(day) OVER (PARTITION BY workspace_id, visitor_id ORDER BY day)
            FROM d WHERE attributed > 0) c
      GROUP BY 1, 2, 3, 4`,
  },
};

/** Fails with the rows that differ, table by table, unless every rollup is its recount. */
export async function expectRollupsRecounted<DB>(db: Kysely<DB>): Promise<void> {
  for (const [table, { kept, counted }] of Object.entries(ROLLUPS)) {
    const { rows } = await sql<{ side: string; row: unknown }>`
      SELECT 'kept, not counted' AS side, to_jsonb(k) AS row
      FROM ((${sql.raw(kept)}) EXCEPT ALL (${sql.raw(counted)})) k
      UNION ALL
      SELECT 'counted, not kept', to_jsonb(c)
      FROM ((${sql.raw(counted)}) EXCEPT ALL (${sql.raw(kept)})) c`.execute(db);
    expect({ table, rows }).toEqual({ table, rows: [] });
  }
  // And every view carries its session's attribution, which the page rollup counts by.
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM events e
    LEFT JOIN sessions s ON s.workspace_id = e.workspace_id AND s.id = e.session_id
    WHERE e.attributed IS DISTINCT FROM (s.organisation_id IS NOT NULL)`.execute(db);
  expect(rows[0]?.n).toBe(0);
}
