import { type RawBuilder, sql } from 'kysely';
import { likeContaining, likeEnding, likeStarting } from '../db/like.js';
import { withinSession } from '../db/partitions.js';
import { profileCountry, profileJoins, profileName, profileText } from '../enrich/profile-sql.js';
import { organisationTotals } from '../sessions/organisation-figures.js';
import type { Comparison, Condition, FieldSpec, Group, Scalar, Unit } from './filters.js';

/**
 * Compiles a checked filter (filters.ts) into one SQL query over the workspace's
 * organisations. Every value the client gave travels as a bind parameter; the SQL text is
 * made only of this file's own fragments, chosen by field and comparison.
 *
 * Semantics (docs/segments.md): text compares without regard to case; a negative
 * comparison (not_equal, not_contains, doesnt_start_with, doesnt_end_with, not_in,
 * not_between, not_set) is exactly "not the positive one",
 * so an organisation without a value matches `industry not_equal Retail`; a field with
 * several values per organisation (tag, url, referrer, multi-select) matches when any of
 * them does, and its negative when none does.
 */

/** Which organisations to look at: a workspace's, or only some of them. */
export interface Scope {
  workspaceId: string;
  organisationIds?: string[];
}

const NEGATIVE: Partial<Record<Comparison, Comparison>> = {
  not_equal: 'equal',
  not_contains: 'contains',
  doesnt_start_with: 'starts_with',
  doesnt_end_with: 'ends_with',
  not_in: 'in',
  not_between: 'between',
  not_set: 'set',
};

type Sql = RawBuilder<unknown>;

// PostgreSQL's timestamps end at 4713 BC, so `now() - 100000 years` is an error; every date
// stored is after 4,000 years ago anyway, so a longer span gives the same answer capped.
// (The largest amount of any other unit is a span of far less.)
const LONGEST_AGO: Partial<Record<Unit, number>> = { years: 4_000, months: 48_000 };

/** `SELECT o.id FROM organisations o … WHERE <filters>`: the matching organisations' ids. */
export function matchingOrganisations(filters: Group, scope: Scope): RawBuilder<{ id: string }> {
  const query = new Compiler(scope);
  const where = query.group(filters);
  const only = (column: string) =>
    scope.organisationIds
      ? sql`AND ${sql.ref(column)} = ANY(${scope.organisationIds}::uuid[])`
      : sql``;
  return sql<{ id: string }>`
    SELECT o.id FROM organisations o
    ${profileJoins}
    ${query.statsJoin()}
    ${query.customJoins()}
    WHERE o.workspace_id = ${scope.workspaceId} ${only('o.id')} AND ${where}`;
}

/**
 * `SELECT o.id, <group 0> AS m0, <group 1> AS m1, …`: for each of the scope's
 * organisations, whether it matches each group, in one pass (the sessions' figures and
 * each custom field joined once for all groups, where a query per group would aggregate
 * them again each time).
 */
export function organisationMatches(
  groups: Group[],
  scope: Scope,
): RawBuilder<{ id: string } & Record<string, boolean>> {
  const query = new Compiler(scope);
  const columns = groups.map(
    (group, i) => sql`coalesce(${query.group(group)}, false) AS ${sql.id(`m${i}`)}`,
  );
  const only = (column: string) =>
    scope.organisationIds
      ? sql`AND ${sql.ref(column)} = ANY(${scope.organisationIds}::uuid[])`
      : sql``;
  return sql`
    SELECT o.id${sql.join(
      columns.map((column) => sql`, ${column}`),
      sql``,
    )}
    FROM organisations o
    ${profileJoins}
    ${query.statsJoin()}
    ${query.customJoins()}
    WHERE o.workspace_id = ${scope.workspaceId} ${only('o.id')}`;
}

class Compiler {
  usesStats = false;
  readonly customAliases = new Map<string, string>();

  constructor(private readonly scope: Scope) {}

  /** The sessions' figures of each organisation, when a condition asked for them. */
  statsJoin(): Sql {
    if (!this.usesStats) return sql``;
    const { workspaceId, organisationIds } = this.scope;
    return sql`LEFT JOIN ${organisationTotals(workspaceId, organisationIds)} st
      ON st.organisation_id = o.id`;
  }

  /** Each custom field a condition named, joined once. */
  customJoins(): Sql {
    if (this.customAliases.size === 0) return sql``;
    return sql.join(
      [...this.customAliases].map(
        ([key, alias]) => sql`LEFT JOIN custom_field_values ${sql.id(alias)}
          ON ${sql.ref(`${alias}.workspace_id`)} = o.workspace_id
          AND ${sql.ref(`${alias}.organisation_id`)} = o.id AND ${sql.ref(`${alias}.key`)} = ${key}`,
      ),
      sql` `,
    );
  }

  group(group: Group): Sql {
    const parts = group.conditions.map((item) =>
      item.type === 'group' ? this.group(item) : this.condition(item),
    );
    // A group without conditions holds for every organisation, whatever its operator.
    if (parts.length === 0) return sql`true`;
    return sql`(${sql.join(parts, group.operator === 'AND' ? sql` AND ` : sql` OR `)})`;
  }

  condition(condition: Condition): Sql {
    const positive = NEGATIVE[condition.comparison] ?? condition.comparison;
    const negate = positive !== condition.comparison;
    const { field } = condition;
    // No organisation has a value of a deleted field: only the negative comparisons hold.
    if (field.missing) return negate ? sql`true` : sql`false`;
    if (field.many) {
      const members = this.organisationsWithValue(field, (value) =>
        predicate(field, positive, condition, value),
      );
      // NOT EXISTS, not NOT IN: PostgreSQL makes it an anti-join, where NOT IN over more
      // rows than fit in work_mem is a subplan scanned again for every organisation (a
      // source held by most of a million sessions took minutes; docs/segments.md).
      return negate
        ? sql`NOT EXISTS (SELECT 1 FROM (${members}) AS m(organisation_id)
            WHERE m.organisation_id = o.id)`
        : sql`o.id IN (${members})`;
    }
    const test = sql`coalesce(${predicate(field, positive, condition, this.value(field))}, false)`;
    return negate ? sql`NOT ${test}` : test;
  }

  /** The one value of a single-valued field, as an SQL expression (NULL when it has none). */
  private value(field: FieldSpec): Sql {
    if (field.customKey !== undefined) {
      let alias = this.customAliases.get(field.customKey);
      if (!alias) {
        alias = `cf${this.customAliases.size}`;
        this.customAliases.set(field.customKey, alias);
      }
      const text = sql`(${sql.ref(`${alias}.value`)} #>> '{}')`;
      switch (field.kind) {
        case 'number':
          return sql`${text}::numeric`;
        case 'date':
          return sql`(${text}::date::timestamp AT TIME ZONE 'UTC')`;
        case 'boolean':
          return sql`${text}::boolean`;
        default:
          return text;
      }
    }
    const stat = (expression: Sql) => {
      this.usesStats = true;
      return expression;
    };
    switch (field.name) {
      case 'name':
        return profileName;
      case 'domain':
        return sql`o.domain`;
      case 'industry':
        return sql`coalesce(c.industry, '')`;
      case 'size':
        return profileText('size');
      case 'country':
        return profileCountry;
      case 'first_seen':
        return stat(sql`coalesce(st.first_seen, o.created_at)`);
      case 'last_seen':
        return stat(sql`coalesce(st.last_seen, o.created_at)`);
      case 'sessions':
        return stat(sql`coalesce(st.sessions, 0)`);
      case 'pageviews':
        return stat(sql`coalesce(st.pageviews, 0)`);
      case 'time_on_site':
        return stat(sql`coalesce(st.seconds, 0)`);
      case 'score':
        return sql`o.score`;
      case 'status':
        return sql`o.status`;
      default:
        throw new Error(`No single value for the field ${field.name}`);
    }
  }

  /** The ids of the organisations having a value of a several-valued field that passes `test`. */
  private organisationsWithValue(field: FieldSpec, test: (value: Sql) => Sql): Sql {
    const { workspaceId, organisationIds } = this.scope;
    const only = (column: string) =>
      organisationIds ? sql`AND ${sql.ref(column)} = ANY(${organisationIds}::uuid[])` : sql``;
    if (field.customKey !== undefined) {
      return sql`SELECT v.organisation_id FROM custom_field_values v
        CROSS JOIN LATERAL jsonb_array_elements_text(v.value) AS x(item)
        WHERE v.workspace_id = ${workspaceId} AND v.key = ${field.customKey}
          ${only('v.organisation_id')} AND ${test(sql`x.item`)}`;
    }
    switch (field.name) {
      case 'tag':
        return sql`SELECT t.organisation_id FROM organisation_tags t
          WHERE t.workspace_id = ${workspaceId} ${only('t.organisation_id')}
            AND ${test(sql`t.name`)}`;
      case 'owner':
        // The owner's uuid and e-mail address: `owner equal <either>` finds the same ones.
        return sql`SELECT w.id FROM organisations w
          JOIN users u ON u.id = w.owner_id
          CROSS JOIN LATERAL (VALUES (u.id::text), (u.email)) AS x(value)
          WHERE w.workspace_id = ${workspaceId} ${only('w.id')} AND ${test(sql`x.value`)}`;
      case 'referrer':
        return sql`SELECT s.organisation_id FROM sessions s
          WHERE s.workspace_id = ${workspaceId} AND s.organisation_id IS NOT NULL
            ${only('s.organisation_id')} AND ${test(sql`s.referrer`)}`;
      case 'source':
        // By sessions_source_idx (workspace_id, source, organisation_id): equal, in and
        // starts_with are index range scans that never visit the table (predicate below).
        return sql`SELECT s.organisation_id FROM sessions s
          WHERE s.workspace_id = ${workspaceId} AND s.organisation_id IS NOT NULL
            ${only('s.organisation_id')} AND ${test(sql`s.source`)}`;
      case 'url':
        if (organisationIds) {
          // A few organisations: look into their sessions' events by index, session by
          // session (LIMIT keeps the planner from turning this into a scan of all events).
          return sql`SELECT s.organisation_id FROM sessions s
            CROSS JOIN LATERAL (SELECT 1 FROM events e
              WHERE e.workspace_id = s.workspace_id AND e.session_id = s.id AND ${withinSession}
                AND ${test(sql`e.url`)} LIMIT 1) hit
            WHERE s.workspace_id = ${workspaceId} ${only('s.organisation_id')}`;
        }
        return sql`SELECT s.organisation_id FROM sessions s
          JOIN events e ON e.workspace_id = s.workspace_id AND e.session_id = s.id
            AND ${withinSession}
          WHERE s.workspace_id = ${workspaceId} AND s.organisation_id IS NOT NULL
            AND ${test(sql`e.url`)}`;
      default:
        throw new Error(`No values for the field ${field.name}`);
    }
  }
}

/** The positive comparison on one value (NULL when the value is). */
function predicate(field: FieldSpec, comparison: Comparison, condition: Condition, x: Sql): Sql {
  const value = condition.value as Scalar;
  const list = condition.value as Scalar[];
  if (comparison === 'set') return field.kind === 'text' ? sql`${x} <> ''` : sql`${x} IS NOT NULL`;
  const bounds = condition.value as [Scalar, Scalar];
  if (field.lowerCase) {
    // The stored values are lower case already (JavaScript's toLowerCase, as here): the
    // column stays bare, so its index serves whole values and prefixes.
    const lower = (item: Scalar) => String(item).toLowerCase();
    switch (comparison) {
      case 'equal':
        return sql`${x} = ${lower(value)}`;
      case 'in':
        return sql`${x} = ANY(${list.map(lower)}::text[])`;
      case 'starts_with':
        return sql`${x} LIKE ${likeStarting(lower(value))}`;
    }
  }
  switch (field.kind) {
    case 'text':
      switch (comparison) {
        case 'equal':
          return sql`lower(${x}) = lower(${value})`;
        case 'in':
          return sql`lower(${x}) IN (SELECT lower(v) FROM unnest(${list}::text[]) v)`;
        case 'contains':
          return sql`${x} ILIKE ${likeContaining(String(value))}`;
        case 'starts_with':
          return sql`${x} ILIKE ${likeStarting(String(value))}`;
        case 'ends_with':
          return sql`${x} ILIKE ${likeEnding(String(value))}`;
      }
      break;
    case 'number':
      switch (comparison) {
        case 'equal':
          return sql`${x} = ${value}::numeric`;
        case 'in':
          return sql`${x} = ANY(${list}::numeric[])`;
        case 'greater_than':
          return sql`${x} > ${value}::numeric`;
        case 'less_than':
          return sql`${x} < ${value}::numeric`;
        case 'greater_than_or_equal':
          return sql`${x} >= ${value}::numeric`;
        case 'less_than_or_equal':
          return sql`${x} <= ${value}::numeric`;
        case 'between':
          return sql`${x} BETWEEN ${bounds[0]}::numeric AND ${bounds[1]}::numeric`;
      }
      break;
    case 'date': {
      // Days are UTC days: `equal` is "on that day", greater_than "after it", less_than "before it".
      const start = (day: Scalar) => `${day}T00:00:00.000Z`;
      // PostgreSQL adds the day (toISOString writes the one after 9999-12-31 as "+010000-…").
      const end = (day: Scalar) => sql`((${day}::date + 1)::timestamp AT TIME ZONE 'UTC')`;
      const amount = Math.min(Number(value), LONGEST_AGO[condition.unit] ?? Number(value));
      const ago = sql`now() - ${`${amount} ${condition.unit}`}::interval`;
      switch (comparison) {
        case 'equal':
          return sql`(${x} >= ${start(value)}::timestamptz AND ${x} < ${end(value)})`;
        case 'in':
          return sql`EXISTS (SELECT 1 FROM unnest(${list}::date[]) AS d(day)
            WHERE ${x} >= (d.day::timestamp AT TIME ZONE 'UTC')
              AND ${x} < ((d.day + 1)::timestamp AT TIME ZONE 'UTC'))`;
        case 'greater_than':
          return sql`${x} >= ${end(value)}`;
        case 'greater_than_or_equal':
          return sql`${x} >= ${start(value)}::timestamptz`;
        case 'less_than':
          return sql`${x} < ${start(value)}::timestamptz`;
        case 'less_than_or_equal':
          return sql`${x} < ${end(value)}`;
        case 'between':
          // Whole days at both ends: from the low day's start to the high day's end.
          return sql`(${x} >= ${start(bounds[0])}::timestamptz AND ${x} < ${end(bounds[1])})`;
        case 'less_than_x_units_ago':
          return sql`${x} > ${ago}`;
        case 'more_than_x_units_ago':
          return sql`${x} < ${ago}`;
      }
      break;
    }
    case 'boolean':
      if (comparison === 'is_true') return sql`${x} IS TRUE`;
      if (comparison === 'is_false') return sql`${x} IS FALSE`;
      break;
  }
  throw new Error(`The ${field.kind} field ${field.name} has no comparison ${comparison}`);
}
