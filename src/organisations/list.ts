import { Type } from '@sinclair/typebox';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { likeContaining } from '../db/like.js';
import type { Database } from '../db/schema.js';
import { profileJoins, profileName } from '../enrich/profile-sql.js';
import { fieldError } from '../http/errors.js';
import { isUuid } from '../http/validation.js';
import { matchingOrganisations } from '../segments/compile.js';
import { type Group, requireFilters } from '../segments/filters.js';
import type { DateRange } from '../sessions/dates.js';

export interface OrganisationFilters {
  workspaceId: string;
  name?: string;
  range: DateRange | null;
  segmentId?: string;
  /** Only these organisations (ids that are not UUIDs match nothing). */
  ids?: string[];
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
    parts.push(sql`${profileName} ILIKE ${likeContaining(f.name)}`);
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
  if (f.ids) {
    const ids = f.ids.filter(isUuid);
    parts.push(ids.length ? sql`o.id IN (${sql.join(ids)})` : sql`false`);
  }
  if (f.filters) {
    parts.push(sql`o.id IN (${matchingOrganisations(f.filters, { workspaceId: f.workspaceId })})`);
  }
  const { rows } = await sql<{ id: string | null; total: number }>`
    WITH matching AS (
      SELECT o.id, (SELECT max(s.started_at) FROM sessions s
                    WHERE s.workspace_id = o.workspace_id AND s.organisation_id = o.id) AS last
      FROM organisations o ${profileJoins}
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

/** The list's query parameters beyond its name, dates and segment (also the CSV export's). */
export const AdHocQuery = {
  tag: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'carries this tag (any case)' }),
  ),
  filters: Type.Optional(
    Type.String({
      maxLength: 65_536,
      description: 'segment filters as JSON (the grammar of POST .../organisations), ANDed',
    }),
  ),
};

/**
 * The list's `tag` and `filters` query parameters (the segment grammar as JSON) as one ad hoc
 * group, checked as POST .../organisations checks its body; undefined when neither is given.
 */
export async function adHocFilters(
  db: Kysely<Database>,
  workspaceId: string,
  query: { tag?: string; filters?: string },
): Promise<Group | undefined> {
  const conditions: unknown[] = [];
  if (query.tag !== undefined) {
    conditions.push({ field: 'tag', comparison: 'equal', value: query.tag });
  }
  if (query.filters !== undefined) {
    try {
      conditions.push(JSON.parse(query.filters));
    } catch {
      throw fieldError('filters', 'The filters field must be the segment filters as JSON.');
    }
  }
  if (conditions.length === 0) return undefined;
  return requireFilters(db, workspaceId, { operator: 'AND', conditions });
}
