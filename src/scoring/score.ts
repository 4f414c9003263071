import { type Kysely, type RawBuilder, sql } from 'kysely';
import { overlapping, withinSession } from '../db/partitions.js';
import type { Database } from '../db/schema.js';
import { eventRows, recordEvents } from '../outbox/events.js';
import { queueForSegments } from '../outbox/segment-queue.js';
import { organisationMatches } from '../segments/compile.js';
import { type CheckedScoring, KEY_PAGE_DAYS } from './settings.js';

/**
 * Scores (contract §17): clamp(0, 100, Σ points of the rules an organisation matches + Σ
 * points of each key page it viewed in the last 30 days), with the reasons largest first.
 * One statement per call computes the scores of the workspace's organisations (or of the
 * ones given) and writes only those that changed; organisations whose score moved are
 * queued for the segment worker when a segment of the workspace filters by score.
 */

/** The reason a key page gives. */
export const keyPageReason = (urlContains: string) => `Viewed ${urlContains}`;

/**
 * `SELECT id, score, reasons` of the workspace's organisations (or of the ones given) as
 * the scoring would have them; computed, not stored.
 */
function computedScores(
  workspaceId: string,
  scoring: CheckedScoring,
  organisationIds?: string[],
): RawBuilder<{ id: string; score: number; reasons: unknown }> {
  const scope = { workspaceId, organisationIds };
  const only = (column: string) =>
    organisationIds ? sql`AND ${sql.ref(column)} = ANY(${organisationIds}::uuid[])` : sql``;
  const hits: RawBuilder<unknown>[] = [];
  if (scoring.rules.length > 0) {
    // Every rule in one pass over the organisations (their figures aggregated once).
    const matches = organisationMatches(
      scoring.rules.map((rule) => rule.filters),
      scope,
    );
    const rules = scoring.rules.map(
      (rule, i) => sql`(r.${sql.id(`m${i}`)}, ${rule.name}::text, ${rule.points}::int)`,
    );
    hits.push(sql`SELECT r.id, x.reason, x.points FROM (${matches}) r
      CROSS JOIN LATERAL (VALUES ${sql.join(rules)}) AS x(hit, reason, points)
      WHERE x.hit`);
  }
  if (scoring.key_pages.length > 0) {
    // One pass over the page views of the last 30 days for every key page, each URL
    // lowered once; a few organisations' views are read session by session by index.
    const pages = scoring.key_pages;
    const days = sql`${`${KEY_PAGE_DAYS} days`}::interval`;
    const views = organisationIds
      ? sql`SELECT s.organisation_id AS id, e.url FROM sessions s
          CROSS JOIN LATERAL (SELECT lower(e.url) AS url FROM events e
            WHERE e.workspace_id = s.workspace_id AND e.session_id = s.id AND ${withinSession}
              AND e.type = 'pageview' AND e.ts >= now() - ${days} OFFSET 0) e
          WHERE s.workspace_id = ${workspaceId} ${only('s.organisation_id')}
            AND ${overlapping(workspaceId, sql`now() - ${days}`)}`
      : sql`SELECT s.organisation_id AS id, lower(e.url) AS url FROM sessions s
          JOIN events e ON e.workspace_id = s.workspace_id AND e.session_id = s.id
            AND ${withinSession}
          WHERE s.workspace_id = ${workspaceId} AND s.organisation_id IS NOT NULL
            AND ${overlapping(workspaceId, sql`now() - ${days}`)} AND e.type = 'pageview'
            AND e.ts >= now() - ${days}
          OFFSET 0`;
    hits.push(sql`SELECT DISTINCT v.id, k.reason, k.points FROM (${views}) v
      JOIN unnest(${pages.map((page) => page.url_contains.toLowerCase())}::text[],
        ${pages.map((page) => keyPageReason(page.url_contains))}::text[],
        ${pages.map((page) => page.points)}::int[]) AS k(needle, reason, points)
        ON strpos(v.url, k.needle) > 0`);
  }
  const all =
    hits.length > 0
      ? sql.join(hits, sql` UNION ALL `)
      : sql`SELECT NULL::uuid AS id, NULL::text AS reason, 0 AS points WHERE false`;
  return sql`
    SELECT o.id,
      least(100, greatest(0, coalesce(sum(h.points), 0)))::smallint AS score,
      coalesce(jsonb_agg(jsonb_build_object('reason', h.reason, 'points', h.points)
          ORDER BY h.points DESC, h.reason) FILTER (WHERE h.id IS NOT NULL), '[]') AS reasons
    FROM organisations o LEFT JOIN (${all}) h ON h.id = o.id
    WHERE o.workspace_id = ${workspaceId} ${only('o.id')}
    GROUP BY o.id`;
}

/**
 * Scores the workspace's organisations (or the ones given) and writes what changed, in one
 * statement, recording organisation.changed for each whose score moved (the CRM sync); `activity` (aligned with `organisationIds`) is what their visits stood at when
 * read (scoring/job.ts), written in the same row version. Ids of those whose score or
 * reasons changed.
 */
export async function scoreOrganisations(
  db: Kysely<Database>,
  workspaceId: string,
  scoring: CheckedScoring,
  organisationIds?: string[],
  activity?: string[],
): Promise<string[]> {
  if (organisationIds?.length === 0) return [];
  const moved = activity
    ? sql`SELECT * FROM unnest(${organisationIds}::uuid[], ${activity}::bigint[]) AS m(id, activity)`
    : sql`SELECT NULL::uuid AS id, NULL::bigint AS activity WHERE false`;
  const { rows } = await sql<{ id: string; changed: boolean }>`
    WITH scored AS (${computedScores(workspaceId, scoring, organisationIds)}),
    moved AS (${moved}),
    updated AS (
      UPDATE organisations o SET score = s.score, score_reasons = s.reasons,
        scored_activity = coalesce(m.activity, before.scored_activity)
      FROM scored s
      JOIN organisations before ON before.workspace_id = ${workspaceId} AND before.id = s.id
      LEFT JOIN moved m ON m.id = s.id
      WHERE o.workspace_id = ${workspaceId} AND o.id = s.id
        AND (before.score <> s.score OR before.score_reasons <> s.reasons
             OR m.activity <> before.scored_activity)
      RETURNING o.workspace_id, o.id,
        (before.score <> s.score OR before.score_reasons <> s.reasons) AS changed
    ), queued AS (
      ${queueForSegments(sql`SELECT workspace_id, id AS organisation_id FROM updated
        WHERE changed AND EXISTS (SELECT 1 FROM segments g WHERE g.workspace_id = ${workspaceId}
          AND jsonb_path_exists(g.filters, 'strict $.**.field ? (@ == "score")'))`)}
    ), changed AS (
      ${recordEvents(
        eventRows(
          'organisation.changed',
          sql`SELECT workspace_id, id AS organisation_id FROM updated WHERE changed`,
        ),
      )}
    )
    SELECT id, changed FROM updated`.execute(db);
  return rows.filter((row) => row.changed).map((row) => row.id);
}

/** How many of the workspace's leads would score above `threshold` with this scoring. */
export async function previewScores(
  db: Kysely<Database>,
  workspaceId: string,
  scoring: CheckedScoring,
  threshold: number,
): Promise<{ above: number; leads: number }> {
  const { rows } = await sql<{ above: number; leads: number }>`
    SELECT count(*) FILTER (WHERE s.score > ${threshold})::int AS above, count(*)::int AS leads
    FROM (${computedScores(workspaceId, scoring)}) s
    JOIN organisations o ON o.workspace_id = ${workspaceId} AND o.id = s.id
    WHERE o.status = 'lead'`.execute(db);
  return rows[0] ?? { above: 0, leads: 0 };
}
