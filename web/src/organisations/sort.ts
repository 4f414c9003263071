/** The lead feed's order: a column of the API's `sort` (contract §17), either way. */

export const SORT_COLUMNS = ['score', 'last_seen', 'sessions', 'name'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

export interface Sort {
  column: SortColumn;
  descending: boolean;
}

/** The API's default order, kept out of the URL. */
export const DEFAULT_SORT: Sort = { column: 'last_seen', descending: true };

const isColumn = (value: string): value is SortColumn =>
  (SORT_COLUMNS as readonly string[]).includes(value);

/** The URL's `sort` as the API spells it ("-score"), or undefined when it is none. */
export function sortSearch(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return isColumn(value.replace(/^-/, '')) ? value : undefined;
}

export function sortOf(param: string | undefined): Sort {
  const column = param?.replace(/^-/, '');
  return column && isColumn(column)
    ? { column, descending: param?.startsWith('-') ?? false }
    : DEFAULT_SORT;
}

/** A sort as the URL and the API take it; undefined for the default order. */
export function sortParam(sort: Sort): string | undefined {
  if (sort.column === DEFAULT_SORT.column && sort.descending === DEFAULT_SORT.descending) {
    return undefined;
  }
  return `${sort.descending ? '-' : ''}${sort.column}`;
}

/**
 * The order after a column's header is pressed: that column the way people mostly want it
 * (highest, latest, most first; names A to Z), and pressed again the other way.
 */
export function nextSort(current: Sort, column: SortColumn): Sort {
  if (current.column === column) return { column, descending: !current.descending };
  return { column, descending: column !== 'name' };
}

const DESCRIPTIONS: Record<SortColumn, [ascending: string, descending: string]> = {
  score: ['lowest score first', 'highest score first'],
  last_seen: ['least recently active first', 'most recently active first'],
  sessions: ['fewest sessions first', 'most sessions first'],
  name: ['by name, A to Z', 'by name, Z to A'],
};

/** "highest score first": the order in words, for the table's caption. */
export const describeSort = (sort: Sort) => DESCRIPTIONS[sort.column][sort.descending ? 1 : 0];
