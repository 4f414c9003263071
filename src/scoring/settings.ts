import { type Static, Type } from '@sinclair/typebox';
import { type Kysely, sql } from 'kysely';
import { listCustomFields } from '../custom-fields/store.js';
import type { Database } from '../db/schema.js';
import { type FieldErrors, unprocessable } from '../http/errors.js';
import { markScoringStale } from '../outbox/scoring-queue.js';
import { checkFilters, FiltersInput, FiltersSchema, type Group } from '../segments/filters.js';

/**
 * A workspace's lead scoring (contract §17): rules (§9 filter groups with points) and key
 * pages (points for viewing a page whose URL contains a text, in the last 30 days). Until
 * an admin saves their own, a workspace scores with DEFAULT_SCORING (docs/lead-score.md).
 */

export const LIMITS = { rules: 50, keyPages: 50, name: 100, url: 2048 } as const;
/** Key pages count when viewed in this many days. */
export const KEY_PAGE_DAYS = 30;

export interface ScoringRule {
  name: string;
  filters: unknown;
  points: number;
}
export interface KeyPage {
  url_contains: string;
  points: number;
}
export interface Scoring {
  rules: ScoringRule[];
  key_pages: KeyPage[];
}
/** Rules whose filters passed the grammar's checks, ready to compile. */
export interface CheckedScoring {
  rules: { name: string; filters: Group; points: number }[];
  key_pages: KeyPage[];
}

/**
 * A new workspace's scoring: intent from the pages that say a visitor is buying (pricing,
 * a demo, contact), and from coming back and reading a lot, lately. docs/lead-score.md
 * gives the reasoning; an admin replaces it in Settings → Lead scoring.
 */
export const DEFAULT_SCORING: Scoring = {
  rules: [
    {
      name: 'Repeat visits (3 or more sessions)',
      filters: {
        operator: 'AND',
        conditions: [{ field: 'sessions', comparison: 'greater_than_or_equal', value: 3 }],
      },
      points: 15,
    },
    {
      name: 'Read 10 or more pages',
      filters: {
        operator: 'AND',
        conditions: [{ field: 'pageviews', comparison: 'greater_than_or_equal', value: 10 }],
      },
      points: 10,
    },
    {
      name: 'Visited in the last 7 days',
      filters: {
        operator: 'AND',
        conditions: [
          { field: 'last_seen', comparison: 'less_than_x_units_ago', value: 7, unit: 'days' },
        ],
      },
      points: 10,
    },
  ],
  key_pages: [
    { url_contains: '/pricing', points: 25 },
    { url_contains: '/demo', points: 25 },
    { url_contains: '/contact', points: 15 },
  ],
};

const Points = (minimum: number) => Type.Integer({ minimum, maximum: 100 });

export const ScoringInput = Type.Object({
  rules: Type.Array(
    Type.Object({
      name: Type.String({ minLength: 1, maxLength: LIMITS.name }),
      filters: FiltersInput,
      points: Points(-100),
    }),
    { maxItems: LIMITS.rules },
  ),
  key_pages: Type.Array(
    Type.Object({
      url_contains: Type.String({ minLength: 1, maxLength: LIMITS.url }),
      points: Points(0),
    }),
    { maxItems: LIMITS.keyPages },
  ),
});
export type ScoringInput = Static<typeof ScoringInput>;

export const ScoringSchema = Type.Object(
  {
    rules: Type.Array(
      Type.Object({
        name: Type.String(),
        filters: Type.Ref(FiltersSchema),
        points: Type.Integer(),
      }),
    ),
    key_pages: Type.Array(Type.Object({ url_contains: Type.String(), points: Type.Integer() })),
    defaults: Type.Boolean({ description: 'true while the workspace scores with the defaults' }),
  },
  { title: 'Scoring' },
);

/** Scoring rules may use every §9 field but the score itself. */
const NOT_IN_RULES = ['score'];

/** Checks scoring as an admin sent it: 422 naming each problem (`rules.0.filters.…`). */
export async function requireScoring(
  db: Kysely<Database>,
  workspaceId: string,
  input: ScoringInput,
): Promise<CheckedScoring> {
  const customFields = await listCustomFields(db, workspaceId);
  const errors: FieldErrors = {};
  const rules = input.rules.flatMap((rule, index) => {
    const root = `rules.${index}.filters`;
    const checked = checkFilters(rule.filters, customFields, { root, without: NOT_IN_RULES });
    if ('errors' in checked) {
      Object.assign(errors, checked.errors);
      return [];
    }
    return [{ name: rule.name.trim(), filters: checked.filters, points: rule.points }];
  });
  input.rules.forEach((rule, index) => {
    if (rule.name.trim() === '') errors[`rules.${index}.name`] = ['The name must not be blank.'];
  });
  if (Object.keys(errors).length > 0) throw unprocessable(errors);
  return { rules, key_pages: input.key_pages };
}

/** The workspace's scoring as stored (or the defaults), and whether it is the defaults. */
export async function loadScoring(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<Scoring & { defaults: boolean }> {
  const row = await db
    .selectFrom('scoring_settings')
    .select(['rules', 'key_pages'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  if (!row) return { ...DEFAULT_SCORING, defaults: true };
  return {
    rules: row.rules as ScoringRule[],
    key_pages: row.key_pages as KeyPage[],
    defaults: false,
  };
}

/**
 * The scoring to compute with: stored rules checked again against the custom fields of
 * now (a rule naming a deleted field matches nobody, as a segment's does).
 */
export async function checkedScoring(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<CheckedScoring> {
  const scoring = await loadScoring(db, workspaceId);
  const customFields = await listCustomFields(db, workspaceId);
  return {
    rules: scoring.rules.flatMap((rule) => {
      const checked = checkFilters(rule.filters, customFields, {
        stored: true,
        without: NOT_IN_RULES,
      });
      return 'filters' in checked ? [{ ...rule, filters: checked.filters }] : [];
    }),
    key_pages: scoring.key_pages,
  };
}

/** Stores an admin's scoring; the job scores the workspace again in full on its next round. */
export async function saveScoring(
  db: Kysely<Database>,
  workspaceId: string,
  input: Scoring,
): Promise<void> {
  const rules = JSON.stringify(
    input.rules.map((rule) => ({
      name: rule.name.trim(),
      filters: rule.filters,
      points: rule.points,
    })),
  );
  const keyPages = JSON.stringify(input.key_pages);
  await db
    .insertInto('scoring_settings')
    .values({ workspace_id: workspaceId, rules, key_pages: keyPages })
    .onConflict((oc) =>
      oc.column('workspace_id').doUpdateSet({ rules, key_pages: keyPages, changed_at: sql`now()` }),
    )
    .execute();
}

/** Drops an admin's scoring: the workspace scores with the defaults again, in full soon. */
export async function resetScoring(db: Kysely<Database>, workspaceId: string): Promise<void> {
  await db.deleteFrom('scoring_settings').where('workspace_id', '=', workspaceId).execute();
  await markScoringStale(db, workspaceId);
}
