import { type Kysely, type RawBuilder, sql } from 'kysely';
import { overlapping, withinSession } from '../db/partitions.js';
import type { Database } from '../db/schema.js';
import { profileCountry, profileJoins, profileName } from '../enrich/profile-sql.js';

/** UTC days, both inclusive, as YYYY-MM-DD. */
export interface DayRange {
  first: string;
  last: string;
}

export interface DayRow {
  day: string;
  sessions: number;
  organisations: number;
  pageviews: string;
}
export interface PageRow {
  url: string;
  pageviews: string;
}
export interface SourceRow {
  source: string;
  sessions: string;
}
export interface ProfileRow {
  industry: string | null;
  country: string | null;
  organisations: number;
}

/** Distinct visitors, and of them those attributed to an organisation. */
export interface VisitorCounts {
  visitors: number;
  identified_visitors: number;
}
/** A day's visitors, or (day NULL) the whole range's. */
export interface VisitorRow extends VisitorCounts {
  day: string | null;
}

export interface LeaderRow {
  id: string;
  name: string;
  sessions: string;
  pageviews: string;
}

export interface StatsRows {
  days: DayRow[];
  visitorDays: (VisitorCounts & { day: string })[];
  visitors: VisitorCounts;
  organisations: number;
  pages: PageRow[];
  sources: SourceRow[];
  profiles: ProfileRow[];
  leaders: LeaderRow[];
}

const TOP = 10;

/**
 * The figures of a workspace's range, from the rollups the database keeps by day (migrations
 * 0011 and 0023) and, for a range's whole months, by month (0039). The parts are independent
 * reads, sent at once so the database can use more than one core; each is a few tens of
 * milliseconds on a month of a million sessions, the range's distinct visitors a little more
 * (docs/performance.md).
 */
export async function readStats(
  db: Kysely<Database>,
  workspaceId: string,
  range: DayRange,
  segmentId?: string,
): Promise<StatsRows> {
  const parts = segmentId
    ? segmentParts(workspaceId, segmentId, range)
    : workspaceParts(workspaceId, range);
  const [dayRows, visitors, pages, sources, profiles, leaders] = await Promise.all([
    parts.days.execute(db),
    parts.visitors.execute(db),
    parts.pages.execute(db),
    parts.sources.execute(db),
    profilesOf(workspaceId, parts.organisations).execute(db),
    leadersOf(workspaceId, parts.perOrganisation).execute(db),
  ]);
  return {
    days: dayRows.rows,
    visitorDays: visitors.rows.flatMap(({ day, ...counts }) => (day ? [{ day, ...counts }] : [])),
    visitors: visitors.rows.find((row) => row.day === null) ?? {
      visitors: 0,
      identified_visitors: 0,
    },
    // The profiles' grand total: every organisation of the range once.
    organisations:
      profiles.rows.find((row) => row.industry === null && row.country === null)?.organisations ??
      0,
    pages: pages.rows,
    sources: sources.rows,
    profiles: profiles.rows,
    leaders: leaders.rows,
  };
}

const daysOf = (column: string, range: DayRange) =>
  sql`${sql.ref(column)} BETWEEN ${range.first}::date AND ${range.last}::date`;

/**
 * A range as the rollups read it: its whole calendar months (first days, both inclusive) from
 * the monthly rollups, the days before and after them from the daily ones. A range of no
 * whole month is days only.
 */
export function splitRange(range: DayRange): { months: DayRange | null; days: DayRange[] } {
  const first = new Date(`${range.first}T00:00:00Z`);
  const last = new Date(`${range.last}T00:00:00Z`);
  const monthOf = (date: Date, add: number) =>
    new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + add, 1));
  const dayOf = (date: Date) => date.toISOString().slice(0, 10);
  // The first whole month starts on the range's first day or the next month's first.
  const start = first.getUTCDate() === 1 ? first : monthOf(first, 1);
  // The month after the last whole one: the next month's if the range ends on a month's
  // last day, else the last day's own.
  const dayAfter = new Date(last.getTime() + 86_400_000);
  const end = dayAfter.getUTCDate() === 1 ? dayAfter : monthOf(last, 0);
  if (start >= end) return { months: null, days: [range] };
  const days: DayRange[] = [];
  if (first < start)
    days.push({ first: range.first, last: dayOf(new Date(start.getTime() - 86_400_000)) });
  if (end <= last) days.push({ first: dayOf(end), last: range.last });
  return { months: { first: dayOf(start), last: dayOf(monthOf(end, -1)) }, days };
}

/** Rows of a rollup kept by day and by month (`columns` a list of the two's shared ones). */
function byDayAndMonth(
  columns: RawBuilder<unknown>,
  daily: string,
  monthly: string,
  workspaceId: string,
  { months, days }: ReturnType<typeof splitRange>,
) {
  const parts = days.map(
    (part) => sql`SELECT ${columns} FROM ${sql.table(daily)}
      WHERE workspace_id = ${workspaceId} AND ${daysOf('day', part)}`,
  );
  if (months) {
    parts.push(sql`SELECT ${columns} FROM ${sql.table(monthly)}
      WHERE workspace_id = ${workspaceId} AND ${daysOf('month', months)}`);
  }
  return sql.join(parts, sql` UNION ALL `);
}

function workspaceParts(workspaceId: string, range: DayRange) {
  const days = daysOf('day', range);
  const split = splitRange(range);
  const organisationRows = byDayAndMonth(
    sql`organisation_id, sessions, pageviews`,
    'stats_organisation_days',
    'stats_organisation_months',
    workspaceId,
    split,
  );
  const pageRows = byDayAndMonth(
    sql`url, attributed_pageviews`,
    'stats_page_days',
    'stats_page_months',
    workspaceId,
    split,
  );
  return {
    days: sql<DayRow>`
      SELECT day::text AS day, sessions::int AS sessions, organisations,
        pageviews::int8 AS pageviews
      FROM stats_workspace_days WHERE workspace_id = ${workspaceId} AND ${days}`,
    // Each day's rows, and the range's: a visitor's first day in the range is the one whose
    // previous day lies before it (migration 0023).
    visitors: sql<VisitorRow>`
      SELECT day::text AS day,
        coalesce(sum(visitors) FILTER (WHERE NOT identified), 0)::int AS visitors,
        coalesce(sum(visitors) FILTER (WHERE identified), 0)::int AS identified_visitors
      FROM stats_visitor_counts WHERE workspace_id = ${workspaceId} AND ${days}
      GROUP BY day
      UNION ALL
      SELECT NULL, coalesce(sum(visitors) FILTER (WHERE NOT identified), 0)::int,
        coalesce(sum(visitors) FILTER (WHERE identified), 0)::int
      FROM stats_visitor_counts WHERE workspace_id = ${workspaceId} AND ${days}
        AND (previous_day IS NULL OR previous_day < ${range.first}::date)`,
    // The views of attributed sessions, the population of every other figure (docs/api.md).
    pages: sql<PageRow>`
      SELECT url, sum(attributed_pageviews)::int8 AS pageviews
      FROM (${pageRows}) r
      GROUP BY url HAVING sum(attributed_pageviews) > 0
      ORDER BY 2 DESC, url COLLATE "C" LIMIT ${TOP}`,
    sources: sql<SourceRow>`
      SELECT source, sum(sessions)::int8 AS sessions
      FROM stats_source_days WHERE workspace_id = ${workspaceId} AND ${days}
      GROUP BY source ORDER BY 2 DESC, source COLLATE "C" LIMIT ${TOP}`,
    organisations: sql`SELECT DISTINCT organisation_id FROM (${organisationRows}) r`,
    perOrganisation: sql`
      SELECT organisation_id, sum(sessions)::int8 AS sessions, sum(pageviews)::int8 AS pageviews
      FROM (${organisationRows}) r GROUP BY organisation_id`,
  };
}

function segmentParts(workspaceId: string, segmentId: string, range: DayRange) {
  // The segment's organisations' rows, by the (workspace, organisation, day) key.
  const rows = sql`stats_organisation_sources r
    JOIN segment_members m ON m.workspace_id = r.workspace_id
      AND m.organisation_id = r.organisation_id AND m.segment_id = ${segmentId}
    WHERE r.workspace_id = ${workspaceId} AND ${daysOf('r.day', range)}`;
  const from = sql`${range.first}::date::timestamp AT TIME ZONE 'UTC'`;
  const to = sql`(${range.last}::date + 1)::timestamp AT TIME ZONE 'UTC'`;
  const whole = sql`(s.pages IS NOT NULL AND s.started_at >= ${from} AND s.ended_at < ${to})`;
  return {
    days: sql<DayRow>`
      SELECT r.day::text AS day, sum(r.sessions)::int AS sessions,
        count(DISTINCT r.organisation_id)::int AS organisations, sum(r.pageviews)::int8 AS pageviews
      FROM ${rows} GROUP BY r.day`,
    // The visitors of the segment's organisations' sessions (all identified), from the
    // sessions: the visitor counts are kept for the workspace, not per organisation.
    visitors: visitorsOf(segmentVisitors(workspaceId, segmentId, range)),
    // Per organisation there is no rollup of pages (it would be nearly as large as the
    // events); the views of the segment's sessions that overlap the range are counted: of a
    // session wholly inside the range, from the URLs its row keeps (migration 0041); of the
    // others (across an end of the range, or whose URLs are not all kept), from its events.
    pages: sql<PageRow>`
      SELECT p.url, count(*)::int8 AS pageviews
      FROM segment_members m
      JOIN sessions s ON s.workspace_id = m.workspace_id AND s.organisation_id = m.organisation_id
        AND ${overlapping(workspaceId, from, to)}
      CROSS JOIN LATERAL (
        SELECT url FROM unnest(s.pages) url WHERE ${whole}
        UNION ALL
        SELECT e.url FROM events e
        WHERE NOT ${whole} AND e.workspace_id = s.workspace_id AND e.session_id = s.id
          AND ${withinSession} AND e.type = 'pageview' AND e.ts >= ${from} AND e.ts < ${to}) p
      WHERE m.workspace_id = ${workspaceId} AND m.segment_id = ${segmentId}
      GROUP BY p.url ORDER BY 2 DESC, p.url COLLATE "C" LIMIT ${TOP}`,
    sources: sql<SourceRow>`
      SELECT r.source, sum(r.sessions)::int8 AS sessions
      FROM ${rows} GROUP BY r.source ORDER BY 2 DESC, r.source COLLATE "C" LIMIT ${TOP}`,
    organisations: sql`SELECT DISTINCT r.organisation_id FROM ${rows}`,
    perOrganisation: sql`
      SELECT r.organisation_id, sum(r.sessions)::int8 AS sessions,
        sum(r.pageviews)::int8 AS pageviews
      FROM ${rows} GROUP BY r.organisation_id`,
  };
}

/** Each day of the range that the segment's organisations' sessions touch, with its visitor. */
function segmentVisitors(workspaceId: string, segmentId: string, range: DayRange) {
  const from = sql`${range.first}::date::timestamp AT TIME ZONE 'UTC'`;
  const to = sql`(${range.last}::date + 1)::timestamp AT TIME ZONE 'UTC'`;
  return sql`
    SELECT day, s.visitor_id
    FROM segment_members m
    JOIN sessions s ON s.workspace_id = m.workspace_id AND s.organisation_id = m.organisation_id
      AND ${overlapping(workspaceId, from, to)}
    CROSS JOIN stats_session_days(s.started_at, s.ended_at) day
    WHERE m.workspace_id = ${workspaceId} AND m.segment_id = ${segmentId}
      AND ${daysOf('day', range)}`;
}

/** Distinct visitors per day and (day NULL) over the range, in one pass over the rows. */
function visitorsOf(visitorDays: RawBuilder<unknown>) {
  return sql<VisitorRow>`
    SELECT day::text AS day, count(DISTINCT visitor_id)::int AS visitors,
      count(DISTINCT visitor_id)::int AS identified_visitors
    FROM (${visitorDays}) r GROUP BY GROUPING SETS ((day), ())`;
}

/**
 * Organisations per industry and per country, from their company-directory profiles, and
 * all of them (the row whose industry and country are both NULL).
 */
function profilesOf(workspaceId: string, organisations: RawBuilder<unknown>) {
  return sql<ProfileRow>`
    WITH seen AS (${organisations}), profiles AS (
      SELECT coalesce(c.industry, '') AS industry, ${profileCountry} AS country
      FROM seen JOIN organisations o ON o.workspace_id = ${workspaceId}
        AND o.id = seen.organisation_id
      ${profileJoins})
    SELECT industry, country, count(*)::int AS organisations FROM profiles
    GROUP BY GROUPING SETS ((industry), (country), ())`;
}

/** The most active organisations of the range: most sessions, then most page views. */
function leadersOf(workspaceId: string, perOrganisation: RawBuilder<unknown>) {
  return sql<LeaderRow>`
    WITH counted AS (${perOrganisation}), leaders AS (
      SELECT * FROM counted ORDER BY sessions DESC, pageviews DESC, organisation_id LIMIT ${TOP})
    SELECT o.id, ${profileName} AS name,
      l.sessions, l.pageviews
    FROM leaders l JOIN organisations o ON o.workspace_id = ${workspaceId}
      AND o.id = l.organisation_id
    ${profileJoins}
    ORDER BY l.sessions DESC, l.pageviews DESC, o.id`;
}
