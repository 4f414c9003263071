import { type Kysely, type RawBuilder, sql } from 'kysely';
import { likeContaining } from '../db/like.js';
import type { Database } from '../db/schema.js';
import { matchingOrganisations } from '../segments/compile.js';
import type { Group } from '../segments/filters.js';
import type { DateRange } from '../sessions/dates.js';

export interface OrganisationFilters {
  workspaceId: string;
  name?: string;
  range: DateRange | null;
  segmentId?: string;
  /** Segment filters run ad hoc (checked by the caller). */
  filters?: Group;
}

/** A page of organisation ids, most recently active first, and how many match. */
export async function findOrganisationPage(
  db: Kysely<Database>,
  f: OrganisationFilters,
  page: { offset: number; limit: number },
): Promise<{ ids: string[]; total: number }> {
  const parts: RawBuilder<unknown>[] = [sql`o.workspace_id = ${f.workspaceId}`];
  if (f.name) {
    parts.push(
      sql`coalesce(nullif(c.name, ''), nullif(o.name, ''), o.domain) ILIKE ${likeContaining(f.name)}`,
    );
  }
  if (f.range) {
    parts.push(sql`EXISTS (SELECT 1 FROM sessions s WHERE s.workspace_id = o.workspace_id
      AND s.organisation_id = o.id AND s.started_at >= ${f.range.from.toISOString()}::timestamptz
      AND s.started_at < ${f.range.to.toISOString()}::timestamptz)`);
  }
  if (f.segmentId) {
    parts.push(sql`EXISTS (SELECT 1 FROM segment_members m WHERE m.workspace_id = o.workspace_id
      AND m.segment_id = ${f.segmentId} AND m.organisation_id = o.id)`);
  }
  if (f.filters) {
    parts.push(sql`o.id IN (${matchingOrganisations(f.filters, { workspaceId: f.workspaceId })})`);
  }
  const { rows } = await sql<{ id: string | null; total: number }>`
    WITH matching AS (
      SELECT o.id, (SELECT max(s.started_at) FROM sessions s
                    WHERE s.workspace_id = o.workspace_id AND s.organisation_id = o.id) AS last
      FROM organisations o LEFT JOIN companies c ON c.domain = o.domain
      WHERE ${sql.join(parts, sql` AND `)}
    ), page AS (
      SELECT id, last FROM matching ORDER BY last DESC NULLS LAST, id
      OFFSET ${page.offset} LIMIT ${page.limit}
    )
    SELECT page.id, (SELECT count(*) FROM matching)::int AS total
    FROM (SELECT 1) one LEFT JOIN page ON true
    ORDER BY page.last DESC NULLS LAST, page.id`.execute(db);
  return { ids: rows.flatMap((row) => (row.id ? [row.id] : [])), total: rows[0]?.total ?? 0 };
}
