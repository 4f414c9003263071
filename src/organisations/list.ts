import { Type } from '@sinclair/typebox';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { memberNamed } from '../accounts/store.js';
import { likeContaining } from '../db/like.js';
import { type Database, ORGANISATION_STATUSES, type OrganisationStatus } from '../db/schema.js';
import { profileJoins, profileName } from '../enrich/profile-sql.js';
import { fieldError } from '../http/errors.js';
import { isUuid } from '../http/validation.js';
import { matchingOrganisations } from '../segments/compile.js';
import { type Group, requireFilters } from '../segments/filters.js';
import type { DateRange } from '../sessions/dates.js';
import { organisationTotals } from '../sessions/organisation-figures.js';

export interface OrganisationFilters {
  workspaceId: string;
  name?: string;
  range: DateRange | null;
  segmentId?: string;
  /** Only these organisations (ids that are not UUIDs match nothing). */
  ids?: string[];
  /** Segment filters run ad hoc (checked by the caller). */
  filters?: Group;
  /** Only organisations this member owns. */
  ownerId?: string;
  /**
   * Only these statuses; 'all' for every status. Default (contract §17): leads only, unless
   * `filters` names the status.
   */
  statuses?: OrganisationStatus[] | 'all';
  /** The order; default -last_seen. */
  sort?: ListSort;
}

export const SORT_KEYS = ['score', 'last_seen', 'sessions', 'name'] as const;
export type ListSort = { key: (typeof SORT_KEYS)[number]; descending: boolean };
const SORTS = SORT_KEYS.flatMap((key) => [key, `-${key}`]);

/** `sort` as a client wrote it (`score`, `-score`, …); 422 when it is none of them. */
export function parseSort(value: string | undefined): ListSort {
  if (value === undefined) return { key: 'last_seen', descending: true };
  if (!SORTS.includes(value)) {
    throw fieldError('sort', `The sort must be one of: ${SORTS.join(', ')}.`);
  }
  const descending = value.startsWith('-');
  return { key: (descending ? value.slice(1) : value) as ListSort['key'], descending };
}

/** `status` (one or several, comma-separated) and `include_all` as the list's statuses. */
export function parseStatuses(
  status: string | undefined,
  includeAll: boolean | undefined,
): OrganisationStatus[] | 'all' {
  if (status === undefined) return includeAll ? 'all' : ['lead'];
  const wanted = status.split(',').map((item) => item.trim());
  const unknown = wanted.filter(
    (item) => !(ORGANISATION_STATUSES as readonly string[]).includes(item),
  );
  if (unknown.length > 0) {
    throw fieldError(
      'status',
      `The status must be one or more of: ${ORGANISATION_STATUSES.join(', ')}.`,
    );
  }
  return wanted as OrganisationStatus[];
}

/** Whether a filter group has a condition on the field, at any depth. */
export function namesField(group: Group, name: string): boolean {
  return group.conditions.some((item) =>
    item.type === 'group' ? namesField(item, name) : item.field.name === name,
  );
}

/** The sort key of each organisation, as an SQL expression over `o` (and `f`, its figures). */
function sortKey(sort: ListSort): RawBuilder<unknown> {
  switch (sort.key) {
    case 'score':
      return sql`o.score`;
    case 'name':
      return sql`lower(${profileName})`;
    case 'sessions':
      return sql`coalesce(f.sessions, 0)`;
    default:
      return sql`f.last_seen`;
  }
}

/** A page of organisation ids, in the order asked (most recently active first), and how many match. */
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
  if (f.ownerId) parts.push(sql`o.owner_id = ${f.ownerId}`);
  // Filters that name the status ask for it: the default of leads only then stands aside.
  const statuses = f.statuses ?? (f.filters && namesField(f.filters, 'status') ? 'all' : ['lead']);
  if (statuses !== 'all') parts.push(sql`o.status = ANY(${statuses}::text[])`);
  const sort = f.sort ?? { key: 'last_seen', descending: true };
  const direction = sort.descending ? sql`DESC NULLS LAST` : sql`ASC NULLS LAST`;
  const { rows } = await sql<{ id: string | null; total: number }>`
    WITH matching AS (
      SELECT o.id, ${sortKey(sort)} AS key
      FROM organisations o ${profileJoins}
      ${
        sort.key === 'sessions' || sort.key === 'last_seen'
          ? sql`LEFT JOIN ${organisationTotals(f.workspaceId)} f ON f.organisation_id = o.id`
          : sql``
      }
      WHERE ${sql.join(parts, sql` AND `)}
    ), page AS (
      SELECT id, key FROM matching ORDER BY key ${direction}, id
      OFFSET ${page.offset} LIMIT ${page.limit}
    )
    SELECT page.id, (SELECT count(*) FROM matching)::int AS total
    FROM (SELECT 1) one LEFT JOIN page ON true
    ORDER BY page.key ${direction}, page.id`.execute(db);
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
  sort: Type.Optional(
    Type.String({
      description:
        'score, last_seen, sessions or name; a leading - for descending (default -last_seen)',
    }),
  ),
  owner: Type.Optional(
    Type.String({ description: 'owned by this member (a uuid), or `me` for the caller' }),
  ),
  status: Type.Optional(
    Type.String({
      description:
        'lead, customer, competitor, hidden (comma-separated for several); default lead only',
    }),
  ),
  include_all: Type.Optional(
    Type.Boolean({ description: 'every status, not only leads (when `status` is not given)' }),
  ),
};

/** The list's sort, owner and status parameters (also the CSV export's). */
export async function listChoices(
  db: Kysely<Database>,
  workspaceId: string,
  callerId: string,
  query: { sort?: string; owner?: string; status?: string; include_all?: boolean },
): Promise<Pick<OrganisationFilters, 'sort' | 'ownerId' | 'statuses'>> {
  return {
    sort: parseSort(query.sort),
    statuses:
      query.status === undefined && query.include_all === undefined
        ? undefined
        : parseStatuses(query.status, query.include_all),
    ownerId:
      query.owner === undefined
        ? undefined
        : await memberNamed(db, workspaceId, callerId, query.owner, 'owner'),
  };
}
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
