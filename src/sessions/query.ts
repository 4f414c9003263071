import { type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import { likeContaining } from '../db/like.js';
import { withinSession } from '../db/partitions.js';
import type { Database, SessionTable } from '../db/schema.js';
import type { DateRange } from './dates.js';

export interface SessionFilters {
  workspaceId: string;
  range: DateRange | null;
  organisationId?: string;
  segmentId?: string;
  url?: string;
  referrer?: string;
  visitorId?: string;
}

/** The WHERE clause of a session list: listed sessions are always attributed. */
export function sessionsWhere(f: SessionFilters): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [
    sql`s.workspace_id = ${f.workspaceId}`,
    sql`s.organisation_id IS NOT NULL`,
  ];
  if (f.range) {
    parts.push(sql`s.started_at >= ${f.range.from.toISOString()}::timestamptz`);
    parts.push(sql`s.started_at < ${f.range.to.toISOString()}::timestamptz`);
  }
  if (f.organisationId) parts.push(sql`s.organisation_id = ${f.organisationId}`);
  if (f.visitorId) parts.push(sql`s.visitor_id = ${f.visitorId}`);
  if (f.referrer) parts.push(sql`s.referrer ILIKE ${likeContaining(f.referrer)}`);
  if (f.url) {
    parts.push(sql`EXISTS (SELECT 1 FROM events e WHERE e.workspace_id = s.workspace_id
      AND e.session_id = s.id AND ${withinSession} AND e.url ILIKE ${likeContaining(f.url)})`);
  }
  if (f.segmentId) {
    parts.push(sql`EXISTS (SELECT 1 FROM segment_members m WHERE m.workspace_id = s.workspace_id
      AND m.segment_id = ${f.segmentId} AND m.organisation_id = s.organisation_id)`);
  }
  return sql.join(parts, sql` AND `);
}

export interface SessionPage {
  ids: string[];
  total: number;
  totalOrganisations: number;
}

/**
 * One page of matching session ids, newest first. With `organisationLimit`, only sessions
 * of the organisations with the most recent matching session are kept (contract §6).
 *
 * Two statements: one pass over the matching sessions counts them per organisation (for
 * the totals and the cap); the page is then read in index order (`started_at DESC, id`),
 * limited to the kept organisations only when the cap cuts. Carrying every matching row
 * through CTEs instead took about twice as long on a month of 67,000 sessions
 * (docs/performance.md).
 */
export async function findSessionPage(
  db: Kysely<Database>,
  filters: SessionFilters,
  page: { offset: number; limit: number },
  organisationLimit: number | null,
): Promise<SessionPage> {
  const cap = organisationLimit ?? 2_147_483_647;
  // One snapshot for both statements, so the totals and the page agree.
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const census = await sql<{
        total: number;
        total_organisations: number;
        kept: string[] | null;
      }>`
      WITH organisations AS (
        SELECT s.organisation_id, max(s.started_at) AS last, count(*) AS sessions
        FROM sessions s WHERE ${sessionsWhere(filters)}
        GROUP BY s.organisation_id
      ), ranked AS (
        SELECT organisation_id, sessions,
          row_number() OVER (ORDER BY last DESC, organisation_id) AS rank
        FROM organisations
      )
      SELECT coalesce(sum(sessions) FILTER (WHERE rank <= ${cap}), 0)::int AS total,
        count(*)::int AS total_organisations,
        CASE WHEN count(*) > ${cap}
          THEN array_agg(organisation_id) FILTER (WHERE rank <= ${cap}) END AS kept
      FROM ranked`.execute(trx);
      const { total = 0, total_organisations = 0, kept = null } = census.rows[0] ?? {};
      if (total === 0 || page.offset >= total) {
        return { ids: [], total, totalOrganisations: total_organisations };
      }
      const only = kept ? sql`AND s.organisation_id = ANY(${kept}::uuid[])` : sql``;
      const { rows } = await sql<{ id: string }>`
      SELECT s.id FROM sessions s WHERE ${sessionsWhere(filters)} ${only}
      ORDER BY s.started_at DESC, s.id
      OFFSET ${page.offset} LIMIT ${page.limit}`.execute(trx);
      return { ids: rows.map((row) => row.id), total, totalOrganisations: total_organisations };
    });
}

export type SessionRecord = Selectable<SessionTable> & {
  organisation_id: string;
  events: { id: string; type: string; ts: Date; url: string; data: Record<string, unknown> }[];
};

/**
 * The sessions with these ids and their events, in the order of `ids`. `started`, where the
 * caller knows it, bounds the sessions' starts (both inclusive, any superset will do), so
 * that only the months holding them are read; their events are read between the earliest
 * start and the latest end, which bound every session's events. A page of the last 30 days
 * otherwise probed the indexes of every month partition, twice.
 */
export async function loadSessions(
  db: Kysely<Database>,
  workspaceId: string,
  ids: string[],
  started?: { from: string; to: string },
): Promise<SessionRecord[]> {
  if (ids.length === 0) return [];
  let sessionQuery = db
    .selectFrom('sessions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids);
  if (started) {
    sessionQuery = sessionQuery
      .where('started_at', '>=', sql<Date>`${started.from}::timestamptz`)
      .where('started_at', '<=', sql<Date>`${started.to}::timestamptz`);
  }
  const sessions = await sessionQuery.execute();
  if (sessions.length === 0) return [];
  // Dates hold milliseconds and the database microseconds: the bounds are widened by one.
  const from = Math.min(...sessions.map((s) => s.started_at.getTime())) - 1;
  const to = Math.max(...sessions.map((s) => s.ended_at.getTime())) + 1;
  const events = await db
    .selectFrom('events')
    .select(['session_id', 'id', 'type', 'ts', 'url', 'data'])
    .where('workspace_id', '=', workspaceId)
    .where('session_id', 'in', ids)
    .where('ts', '>=', new Date(from))
    .where('ts', '<=', new Date(to))
    .orderBy('ts')
    .orderBy('id')
    .execute();
  const eventsBySession = new Map<string, SessionRecord['events']>();
  for (const event of events) {
    const list = eventsBySession.get(event.session_id) ?? [];
    list.push(event);
    eventsBySession.set(event.session_id, list);
  }
  const byId = new Map(sessions.map((s) => [s.id, s]));
  return ids.flatMap((id) => {
    const session = byId.get(id);
    if (!session?.organisation_id) return [];
    return [
      {
        ...session,
        organisation_id: session.organisation_id,
        events: eventsBySession.get(id) ?? [],
      },
    ];
  });
}
