import { type RawBuilder, sql } from 'kysely';

/**
 * Each organisation's session figures: what migration 0026 keeps for its ended sessions
 * plus its sessions not ended yet, counted here (a few per organisation, found by
 * sessions_unnotified_idx). Columns: organisation_id, sessions, pageviews, seconds,
 * first_seen, last_seen; organisations without sessions have no row.
 */
export function organisationTotals(
  workspaceId: string,
  ids?: readonly string[],
): RawBuilder<unknown> {
  const only = ids
    ? sql`AND organisation_id = ANY(${ids}::uuid[])`
    : sql`AND organisation_id IS NOT NULL`;
  return sql`(
    SELECT organisation_id, sum(sessions)::int AS sessions, sum(pageviews)::int8 AS pageviews,
      (sum(micros) / 1e6)::float8 AS seconds, min(first_seen) AS first_seen,
      max(last_seen) AS last_seen
    FROM (
      SELECT organisation_id, sessions, pageviews, micros, first_seen, last_seen
      FROM organisation_figures WHERE workspace_id = ${workspaceId} ${only}
      UNION ALL
      SELECT organisation_id, 1, pageviews, session_micros(started_at, ended_at), started_at,
        ended_at
      FROM sessions WHERE workspace_id = ${workspaceId} AND NOT ended_notified ${only}
    ) parts
    GROUP BY organisation_id
  )`;
}

/**
 * Its unique visitors and places ("City|CC", sorted), over the same sessions, as columns
 * `visitors` and `locations` for a query whose `t.organisation_id` names the organisation.
 * Visitors are counted from its sessions, ended or not, read from the index by organisation
 * alone (migration 0042); places from its ended sessions' places by month (0050) and its
 * sessions not ended yet.
 */
export function visitorsAndPlaces(workspaceId: string): RawBuilder<unknown> {
  const live = sql`sessions s WHERE s.workspace_id = ${workspaceId}
    AND s.organisation_id = t.organisation_id AND NOT s.ended_notified`;
  return sql`
    (SELECT count(DISTINCT s.visitor_id) FROM sessions s
     WHERE s.workspace_id = ${workspaceId} AND s.organisation_id = t.organisation_id) AS visitors,
    (SELECT array_agg(DISTINCT place ORDER BY place) FROM (
       SELECT l.city || '|' || l.country AS place FROM organisation_place_months l
       WHERE l.workspace_id = ${workspaceId} AND l.organisation_id = t.organisation_id
         AND l.city <> ''
       UNION ALL
       SELECT s.city || '|' || s.country FROM ${live} AND s.city <> '') places) AS locations`;
}
