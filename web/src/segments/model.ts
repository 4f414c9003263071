import {
  BUILT_IN_FIELDS,
  type Comparison,
  comparisonsOf,
  type FieldShape,
  UNITS,
} from '../../../src/segments/grammar';

export type { Comparison };

import type { Body } from '../api/types';
import { STATUS_LABELS } from '../ui/status';

export { comparisonsOf, UNITS };

/** The filters as the API's schema types them. */
export type Filters = Body<'/v1/workspaces/{workspaceUuid}/organisations', 'post'>['filters'];

/** A field the builder offers: the grammar's built-ins and the workspace's custom fields. */
export interface BuilderField extends FieldShape {
  label: string;
  options?: { key: string; label: string }[];
}

const LABELS: Record<string, string> = {
  name: 'Name',
  domain: 'Domain',
  industry: 'Industry',
  size: 'Size',
  country: 'Country (code)',
  tag: 'Tag',
  first_seen: 'First seen',
  last_seen: 'Last seen',
  sessions: 'Sessions',
  pageviews: 'Page views',
  time_on_site: 'Time on site (seconds)',
  url: 'Visited URL',
  referrer: 'Referrer',
  source: 'Source',
  score: 'Score',
  status: 'Status',
  owner: 'Owner (member e-mail)',
};

/** The words for a built-in field's fixed values (the grammar's `values`). */
const VALUE_LABELS: Record<string, string> = STATUS_LABELS;

export function builderFields(
  custom: { key: string; name: string; type: string; options: { key: string; label: string }[] }[],
): BuilderField[] {
  const kindOf = (type: string): FieldShape['kind'] =>
    type === 'number'
      ? 'number'
      : type === 'date'
        ? 'date'
        : type === 'boolean'
          ? 'boolean'
          : 'text';
  return [
    ...BUILT_IN_FIELDS.map((field) => ({
      ...field,
      label: LABELS[field.name] ?? field.name,
      ...(field.values
        ? { options: field.values.map((key) => ({ key, label: VALUE_LABELS[key] ?? key })) }
        : {}),
    })),
    ...custom.map((field) => ({
      name: field.key,
      label: field.name,
      kind: kindOf(field.type),
      many: field.type === 'multi_select',
      optional: true,
      ...(field.type === 'select' || field.type === 'multi_select'
        ? { options: field.options }
        : {}),
    })),
  ];
}

export const COMPARISON_LABELS: Record<Comparison, string> = {
  equal: 'is',
  not_equal: 'is not',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  doesnt_start_with: 'does not start with',
  ends_with: 'ends with',
  doesnt_end_with: 'does not end with',
  in: 'is one of',
  not_in: 'is none of',
  greater_than: 'is more than',
  greater_than_or_equal: 'is at least',
  less_than: 'is less than',
  less_than_or_equal: 'is at most',
  between: 'is between',
  not_between: 'is not between',
  less_than_x_units_ago: 'is within the last',
  more_than_x_units_ago: 'is longer ago than',
  set: 'is set',
  not_set: 'is not set',
  is_true: 'is yes',
  is_false: 'is no',
};

/** A condition as the builder edits it: values as typed. */
export interface DraftCondition {
  kind: 'condition';
  id: number;
  field: string;
  comparison: Comparison;
  value: string;
  second: string;
  unit: (typeof UNITS)[number];
}
export interface DraftGroup {
  kind: 'group';
  id: number;
  operator: 'AND' | 'OR';
  items: (DraftCondition | DraftGroup)[];
}

let nextId = 1;
export const newCondition = (field = 'industry'): DraftCondition => ({
  kind: 'condition',
  id: nextId++,
  field,
  comparison: 'equal',
  value: '',
  second: '',
  unit: 'days',
});
export const newGroup = (operator: 'AND' | 'OR' = 'AND'): DraftGroup => ({
  kind: 'group',
  id: nextId++,
  operator,
  items: [newCondition()],
});

export const needsNoValue = (c: Comparison) =>
  c === 'set' || c === 'not_set' || c === 'is_true' || c === 'is_false';
export const isRange = (c: Comparison) => c === 'between' || c === 'not_between';
export const isList = (c: Comparison) => c === 'in' || c === 'not_in';
export const isAgo = (c: Comparison) =>
  c === 'less_than_x_units_ago' || c === 'more_than_x_units_ago';

/** The grammar's JSON for a draft (what the API takes). */
export function toFilters(group: DraftGroup, fields: BuilderField[]): Filters {
  // The builder only offers what the grammar allows; the server checks it all the same.
  return toJson(group, fields) as Filters;
}

function toJson(group: DraftGroup, fields: BuilderField[]): unknown {
  return {
    operator: group.operator,
    conditions: group.items.map((item) => {
      if (item.kind === 'group') return toJson(item, fields);
      const field = fields.find((f) => f.name === item.field);
      const scalar = (text: string) => (field?.kind === 'number' ? Number(text) : text.trim());
      const condition: Record<string, unknown> = { field: item.field, comparison: item.comparison };
      if (needsNoValue(item.comparison)) return condition;
      if (isAgo(item.comparison))
        return { ...condition, value: Number(item.value), unit: item.unit };
      if (isRange(item.comparison))
        return { ...condition, value: [scalar(item.value), scalar(item.second)] };
      if (isList(item.comparison)) {
        return {
          ...condition,
          value: item.value
            .split(',')
            .map((v) => scalar(v))
            .filter((v) => v !== ''),
        };
      }
      return { ...condition, value: scalar(item.value) };
    }),
  };
}

/** A saved filter back into a draft. */
export function fromFilters(filters: unknown): DraftGroup {
  const group = filters as { operator?: string; conditions?: unknown[] };
  return {
    kind: 'group',
    id: nextId++,
    operator: group.operator === 'OR' ? 'OR' : 'AND',
    items: (group.conditions ?? []).map((raw) => {
      const c = raw as Record<string, unknown>;
      if (Array.isArray(c.conditions)) return fromFilters(c);
      const value = c.value;
      const [first, second] = Array.isArray(value) ? value : [value, ''];
      const comparison = c.comparison as Comparison;
      return {
        kind: 'condition' as const,
        id: nextId++,
        field: String(c.field),
        comparison,
        value: isList(comparison) && Array.isArray(value) ? value.join(', ') : String(first ?? ''),
        second: isRange(comparison) ? String(second ?? '') : '',
        unit: (typeof c.unit === 'string'
          ? c.unit.replace(/s?$/, 's')
          : 'days') as DraftCondition['unit'],
      };
    }),
  };
}

/** What a comparison's value looks like, so a change of comparison can keep or clear it. */
export const shapeOf = (c: Comparison) =>
  needsNoValue(c)
    ? 'none'
    : isAgo(c)
      ? 'amount'
      : isRange(c)
        ? 'range'
        : isList(c)
          ? 'list'
          : 'one';

/** Whether some condition still lacks a value it needs (then there is nothing to count yet). */
export function isIncomplete(group: DraftGroup): boolean {
  return group.items.some((item) => {
    if (item.kind === 'group') return isIncomplete(item);
    if (needsNoValue(item.comparison)) return false;
    if (item.value.trim() === '') return true;
    return isRange(item.comparison) && item.second.trim() === '';
  });
}

/** The problems the server found at exactly `path` (e.g. `filters.conditions.1`) or inside it. */
export function errorsAt(
  errors: Record<string, string[]> | undefined,
  path: string,
  exact = false,
): string[] {
  if (!errors) return [];
  return Object.entries(errors)
    .filter(([key]) =>
      exact
        ? key === path || key === `${path}.operator` || key === `${path}.conditions`
        : key === path || key.startsWith(`${path}.`),
    )
    .flatMap(([, messages]) => messages);
}

/** The known fields plus any the draft names that the workspace no longer has. */
export function withMissing(fields: BuilderField[], group: DraftGroup): BuilderField[] {
  const names = new Set(fields.map((field) => field.name));
  const missing: BuilderField[] = [];
  const visit = (g: DraftGroup) => {
    for (const item of g.items) {
      if (item.kind === 'group') visit(item);
      else if (!names.has(item.field)) {
        names.add(item.field);
        missing.push({
          name: item.field,
          label: `${item.field} (deleted field)`,
          kind: 'text',
          many: false,
          optional: true,
        });
      }
    }
  };
  visit(group);
  return [...fields, ...missing];
}
