/**
 * The segment filter grammar's vocabulary (contract §9 and §13): its comparisons, units and
 * built-in fields, and which comparisons fit which kind of field. No imports: the server
 * checks filters with it (filters.ts) and the dashboard's builder offers exactly these.
 */

export const COMPARISONS = [
  'equal',
  'not_equal',
  'contains',
  'not_contains',
  'starts_with',
  'doesnt_start_with',
  'ends_with',
  'doesnt_end_with',
  'in',
  'not_in',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'between',
  'not_between',
  'less_than_x_units_ago',
  'more_than_x_units_ago',
  'set',
  'not_set',
  'is_true',
  'is_false',
] as const;
export type Comparison = (typeof COMPARISONS)[number];

export const UNITS = ['seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years'] as const;
export type Unit = (typeof UNITS)[number];

/** The units a filter may name: each in the singular and the plural (contract §13). */
export const UNIT_NAMES: readonly string[] = UNITS.flatMap((unit) => [unit.slice(0, -1), unit]);

/** A unit as a client wrote it, spelled out in the plural; undefined when it is none. */
export const unitNamed = (name: unknown): Unit | undefined =>
  typeof name === 'string' && UNIT_NAMES.includes(name)
    ? (UNITS.find((unit) => unit === name || unit === `${name}s`) as Unit)
    : undefined;

export type Kind = 'text' | 'number' | 'date' | 'boolean';

/** What the grammar needs to know of a field to say which comparisons fit it. */
export interface FieldShape {
  name: string;
  kind: Kind;
  /** Several values per organisation (tags, visited URLs): a condition asks for any of them. */
  many: boolean;
  /** Whether an organisation can lack a value, so that set/not_set mean something. */
  optional: boolean;
  /** Its values are stored in lower case, so whole-value and prefix tests can use an index. */
  lowerCase?: boolean;
  /** The only whole values it takes (a built-in field with a fixed set). */
  values?: readonly string[];
}

const builtIn = (
  name: string,
  kind: Kind,
  many = false,
  optional = kind === 'text',
): FieldShape => ({
  name,
  kind,
  many,
  optional,
});

/** The built-in fields; their meaning is documented in docs/segments.md. */
export const BUILT_IN_FIELDS: readonly FieldShape[] = [
  builtIn('name', 'text'),
  builtIn('domain', 'text'),
  builtIn('industry', 'text'),
  builtIn('size', 'text'),
  builtIn('country', 'text'),
  builtIn('tag', 'text', true),
  builtIn('first_seen', 'date'),
  builtIn('last_seen', 'date'),
  builtIn('sessions', 'number'),
  builtIn('pageviews', 'number'),
  builtIn('time_on_site', 'number'),
  builtIn('url', 'text', true),
  builtIn('referrer', 'text', true),
  // Every session has one (`direct` at least), so set/not_set would say nothing.
  { ...builtIn('source', 'text', true, false), lowerCase: true },
  // Contract §17: the lead score, the status and the owner (a member's uuid or e-mail).
  builtIn('score', 'number'),
  {
    ...builtIn('status', 'text', false, false),
    values: ['lead', 'customer', 'competitor', 'hidden'],
  },
  builtIn('owner', 'text', true),
];

const VALUE_COMPARISONS: Record<Kind, readonly Comparison[]> = {
  text: [
    'equal',
    'not_equal',
    'contains',
    'not_contains',
    'starts_with',
    'doesnt_start_with',
    'ends_with',
    'doesnt_end_with',
    'in',
    'not_in',
  ],
  number: [
    'equal',
    'not_equal',
    'greater_than',
    'greater_than_or_equal',
    'less_than',
    'less_than_or_equal',
    'between',
    'not_between',
    'in',
    'not_in',
  ],
  date: [
    'equal',
    'not_equal',
    'greater_than',
    'greater_than_or_equal',
    'less_than',
    'less_than_or_equal',
    'between',
    'not_between',
    'in',
    'not_in',
    'less_than_x_units_ago',
    'more_than_x_units_ago',
  ],
  boolean: ['is_true', 'is_false'],
};

/** The comparisons a field accepts. */
export function comparisonsOf(field: Pick<FieldShape, 'kind' | 'optional'>): Comparison[] {
  return [
    ...VALUE_COMPARISONS[field.kind],
    ...(field.optional ? (['set', 'not_set'] as const) : []),
  ];
}
