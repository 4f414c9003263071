import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { listCustomFields } from '../custom-fields/store.js';
import type { Database, FieldOption } from '../db/schema.js';
import { type FieldErrors, unprocessable } from '../http/errors.js';
import { isDay } from '../http/validation.js';
import {
  BUILT_IN_FIELDS,
  COMPARISONS,
  type Comparison,
  comparisonsOf,
  type FieldShape,
  type Kind,
  UNIT_NAMES,
  UNITS,
  type Unit,
  unitNamed,
} from './grammar.js';

export {
  BUILT_IN_FIELDS,
  COMPARISONS,
  type Comparison,
  comparisonsOf,
  type Kind,
  UNIT_NAMES,
  UNITS,
  type Unit,
  unitNamed,
};

/**
 * The segment filter grammar (contract §9): a group of conditions joined by AND or OR,
 * groups nested in groups. This file checks a filter as a client wrote it and turns it
 * into a tree whose every field, comparison and value is known to make sense; compile.ts
 * turns that tree into SQL.
 */

/** What a filter can name: a built-in field of every organisation or a custom field. */
export interface FieldSpec extends FieldShape {
  /** A custom field's key; absent for built-in fields. */
  customKey?: string;
  /** Allowed values of select fields. */
  options?: readonly string[];
  /** A custom field deleted since the filter was saved: no organisation has a value of it. */
  missing?: boolean;
}

/** The part of a custom field definition that decides how it is filtered. */
export interface CustomFieldShape {
  key: string;
  type: string;
  options: unknown;
}

/** How a custom field of each type is filtered. */
export function customFieldSpec(field: CustomFieldShape): FieldSpec {
  const options = (field.options as FieldOption[]).map((option) => option.key);
  const spec = (kind: Kind, many = false): FieldSpec => ({
    name: field.key,
    kind,
    many,
    optional: true,
    customKey: field.key,
    ...((field.type === 'select' || field.type === 'multi_select') && { options }),
  });
  switch (field.type) {
    case 'number':
      return spec('number');
    case 'date':
      return spec('date');
    case 'boolean':
      return spec('boolean');
    case 'multi_select':
      return spec('text', true);
    default:
      return spec('text');
  }
}

/** Built-in fields that a custom field of the same key stands in for (contract §17's). */
const YIELDING_FIELDS: ReadonlySet<string> = new Set(['score', 'status', 'owner']);

export type Scalar = string | number;

export interface Condition {
  type: 'condition';
  field: FieldSpec;
  comparison: Comparison;
  /**
   * A text, number or day (YYYY-MM-DD) for one-value comparisons; a list for in/not_in;
   * `[low, high]` (low ≤ high) for between/not_between.
   */
  value: Scalar | Scalar[] | null;
  /** For the *_x_units_ago comparisons. */
  unit: Unit;
}

export interface Group {
  type: 'group';
  operator: 'AND' | 'OR';
  conditions: (Condition | Group)[];
}

export const LIMITS = {
  depth: 5,
  conditions: 100,
  listItems: 1000,
  textLength: 1000,
  amount: 100_000,
} as const;

const filtersShape = {
  operator: Type.String({ description: 'AND or OR' }),
  conditions: Type.Array(Type.Unknown(), {
    description:
      'Conditions {field, comparison, value, unit?} and nested groups {operator, conditions}',
  }),
};
const filtersDescription =
  'A group of conditions joined by AND or OR; groups nest. Fields, comparisons and value types: docs/segments.md.';

/** Filters in a request body: only the outline here, `checkFilters` gives precise 422s. */
export const FiltersInput = Type.Object(filtersShape, {
  description: `${filtersDescription} Conditions as in the SegmentFilters schema.`,
});

const literals = (values: readonly string[]) => values.map((value) => Type.Literal(value));

/** One condition, for the OpenAPI document: the comparisons and units spelled out. */
const ConditionSchema = Type.Object({
  field: Type.String({ description: 'A built-in field (docs/segments.md) or a custom field key' }),
  comparison: Type.Union(literals(COMPARISONS)),
  value: Type.Optional(
    Type.Unknown({
      description:
        'Text, number or YYYY-MM-DD date; a list for in/not_in; [low, high] (inclusive) for between/not_between; none for set/not_set/is_true/is_false',
    }),
  ),
  unit: Type.Optional(
    Type.Union([...literals(UNIT_NAMES), Type.Null()], {
      description: 'For *_x_units_ago, default days; singular or plural, stored in the plural',
    }),
  ),
});

/** Filters in an answer (a shared schema of the OpenAPI document). */
export const FiltersSchema = Type.Object(
  {
    operator: Type.Union(literals(['AND', 'OR'])),
    conditions: Type.Array(Type.Union([ConditionSchema, Type.Ref('SegmentFilters')]), {
      description: 'Conditions and nested groups',
    }),
  },
  { $id: 'SegmentFilters', description: filtersDescription },
);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks a filter against the grammar and the workspace's custom fields. Answers the tree
 * or the problems, keyed by dotted path from `root` (e.g. `filters.conditions.1.value`).
 * A `stored` filter was checked when it was saved; since then a custom field it names may
 * have been deleted (it then has no values) or have lost an option (the value still counts).
 * Built-in fields named in `without` are not offered (a scoring rule cannot ask for the score).
 */
export function checkFilters(
  input: unknown,
  customFields: CustomFieldShape[],
  {
    root = 'filters',
    stored = false,
    without = [],
  }: { root?: string; stored?: boolean; without?: readonly string[] } = {},
): { filters: Group } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const fail = (path: string, problem: string) => {
    errors[path] = [...(errors[path] ?? []), problem];
  };
  const fields = new Map<string, FieldSpec>(
    BUILT_IN_FIELDS.filter((field) => !without.includes(field.name)).map((field) => [
      field.name,
      field.values ? { ...field, options: field.values } : field,
    ]),
  );
  for (const custom of customFields) {
    // Fields built in since a workspace could name a custom field so (score, status,
    // owner) yield to it: its segments keep their meaning (docs/segments.md).
    const builtIn = fields.get(custom.key);
    if (!builtIn || YIELDING_FIELDS.has(custom.key))
      fields.set(custom.key, customFieldSpec(custom));
  }
  let count = 0;

  const group = (raw: unknown, path: string, depth: number): Group | null => {
    if (!isObject(raw)) {
      fail(path, 'The group must be an object with operator and conditions.');
      return null;
    }
    if (depth > LIMITS.depth) {
      fail(path, `Groups may be nested at most ${LIMITS.depth} deep.`);
      return null;
    }
    let ok = true;
    const operator = raw.operator;
    if (operator !== 'AND' && operator !== 'OR') {
      fail(`${path}.operator`, 'The operator must be AND or OR.');
      ok = false;
    }
    // An empty list is allowed, as Snitcher's document allows it: it matches every
    // organisation (contract §18).
    if (!Array.isArray(raw.conditions)) {
      fail(`${path}.conditions`, 'The conditions must be a list.');
      return null;
    }
    const conditions: (Condition | Group)[] = [];
    raw.conditions.forEach((item, index) => {
      const itemPath = `${path}.conditions.${index}`;
      const checked =
        isObject(item) && ('conditions' in item || 'operator' in item)
          ? group(item, itemPath, depth + 1)
          : condition(item, itemPath);
      if (checked) conditions.push(checked);
      else ok = false;
    });
    return ok ? { type: 'group', operator: operator as 'AND' | 'OR', conditions } : null;
  };

  const condition = (raw: unknown, path: string): Condition | null => {
    count += 1;
    if (count === LIMITS.conditions + 1) {
      fail(root, `A filter may hold at most ${LIMITS.conditions} conditions.`);
    }
    if (!isObject(raw)) {
      fail(path, 'The condition must be an object with field, comparison and value.');
      return null;
    }
    const field =
      typeof raw.field !== 'string'
        ? undefined
        : (fields.get(raw.field) ??
          (stored
            ? { name: raw.field, kind: 'text', many: false, optional: true, missing: true }
            : undefined));
    if (typeof raw.field !== 'string' || raw.field === '') {
      fail(`${path}.field`, 'The field is required.');
    } else if (!field) {
      fail(
        `${path}.field`,
        `The field "${raw.field}" is neither a built-in field nor a custom field of this workspace.`,
      );
    }
    const comparison = raw.comparison as Comparison;
    if (typeof raw.comparison !== 'string' || raw.comparison === '') {
      fail(`${path}.comparison`, 'The comparison is required.');
      return null;
    }
    if (!COMPARISONS.includes(comparison)) {
      fail(`${path}.comparison`, `The comparison must be one of: ${COMPARISONS.join(', ')}.`);
      return null;
    }
    if (!field) return null;
    if (field.missing) return { type: 'condition', field, comparison, value: null, unit: 'days' };
    const allowed = comparisonsOf(field);
    if (!allowed.includes(comparison)) {
      fail(
        `${path}.comparison`,
        `The ${field.kind} field "${field.name}" takes: ${allowed.join(', ')}.`,
      );
      return null;
    }
    const relative = comparison.endsWith('_units_ago');
    let unit: Unit = 'days';
    if (raw.unit !== undefined && raw.unit !== null) {
      if (!relative) {
        fail(`${path}.unit`, 'A unit applies only to the *_x_units_ago comparisons.');
        return null;
      }
      const named = unitNamed(raw.unit);
      if (!named) {
        fail(`${path}.unit`, `The unit must be one of: ${UNIT_NAMES.join(', ')}.`);
        return null;
      }
      unit = named;
    }
    const value = checkValue(
      stored ? { ...field, options: undefined } : field,
      comparison,
      raw.value,
    );
    if ('problem' in value) {
      fail(`${path}.value`, value.problem);
      return null;
    }
    return { type: 'condition', field, comparison, value: value.value, unit };
  };

  const filters = group(input, root, 1);
  if (Object.keys(errors).length > 0 || !filters) return { errors };
  return { filters };
}

/** A filter from a request, checked against the workspace's custom fields; 422 otherwise. */
export async function requireFilters(
  db: Kysely<Database>,
  workspaceId: string,
  input: unknown,
): Promise<Group> {
  const result = checkFilters(input, await listCustomFields(db, workspaceId));
  if ('errors' in result) throw unprocessable(result.errors);
  return result.filters;
}

type Checked = { value: Scalar | Scalar[] | null } | { problem: string };

function checkValue(field: FieldSpec, comparison: Comparison, value: unknown): Checked {
  if (['set', 'not_set', 'is_true', 'is_false'].includes(comparison)) return { value: null };
  if (comparison.endsWith('_units_ago')) {
    return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= LIMITS.amount
      ? { value: value as number }
      : { problem: `The value must be a whole number from 1 to ${LIMITS.amount}.` };
  }
  if (comparison === 'in' || comparison === 'not_in') {
    if (!Array.isArray(value) || value.length === 0 || value.length > LIMITS.listItems) {
      return { problem: `The value must be a list of 1 to ${LIMITS.listItems} items.` };
    }
    const items: Scalar[] = [];
    for (const item of value) {
      const checked = checkScalar(field, comparison, item);
      if ('problem' in checked) return { problem: `Each item of the list: ${checked.problem}` };
      items.push(checked.value as Scalar);
    }
    return { value: items };
  }
  if (comparison === 'between' || comparison === 'not_between') {
    const what = field.kind === 'date' ? 'dates as YYYY-MM-DD' : 'numbers';
    if (!Array.isArray(value) || value.length !== 2) {
      return { problem: `The value must be a list of two ${what}: [low, high].` };
    }
    const bounds: Scalar[] = [];
    for (const [index, item] of value.entries()) {
      const checked = checkScalar(field, comparison, item);
      if ('problem' in checked) {
        return { problem: `The ${index === 0 ? 'low' : 'high'} end: ${checked.problem}` };
      }
      bounds.push(checked.value as Scalar);
    }
    // Days as YYYY-MM-DD order as text does.
    const [low, high] = bounds as [Scalar, Scalar];
    if (low > high) return { problem: 'The low end must not be greater than the high end.' };
    return { value: bounds };
  }
  return checkScalar(field, comparison, value);
}

function checkScalar(field: FieldSpec, comparison: Comparison, value: unknown): Checked {
  switch (field.kind) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? { value }
        : { problem: 'The value must be a number.' };
    case 'date':
      return isDay(value) ? { value } : { problem: 'The value must be a date as YYYY-MM-DD.' };
    default: {
      if (typeof value !== 'string' || value.length === 0 || value.length > LIMITS.textLength) {
        return { problem: `The value must be text of 1 to ${LIMITS.textLength} characters.` };
      }
      // A select field's whole values are its option keys; parts of them are any text.
      const whole = ['equal', 'not_equal', 'in', 'not_in'].includes(comparison);
      if (whole && field.options && !field.options.includes(value)) {
        return {
          problem: `The value must be one of the field's options: ${field.options.join(', ')}.`,
        };
      }
      return { value };
    }
  }
}

/** Whether any condition depends on the current time (its membership changes as time passes). */
export function hasRelativeDates(filters: Group): boolean {
  return filters.conditions.some((item) =>
    item.type === 'group' ? hasRelativeDates(item) : item.comparison.endsWith('_units_ago'),
  );
}
