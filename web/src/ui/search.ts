/** URL search parameters, read defensively: a hand-edited link must not break a page. */

export function optionalString(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function pageNumber(value: unknown): number | undefined {
  const page = Number(value);
  return Number.isInteger(page) && page > 1 ? page : undefined;
}

/** A page number as the URL keeps it: page 1 is the URL without one. */
export function pageParam(page: number): number | undefined {
  return page > 1 ? page : undefined;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const day = (value: unknown) => (typeof value === 'string' && DAY.test(value) ? value : undefined);

export interface DateRangeSearch {
  from?: string | undefined;
  to?: string | undefined;
}

export function dateRangeSearch(search: Record<string, unknown>): DateRangeSearch {
  return { from: day(search.from), to: day(search.to) };
}

/** A UTC day as the API counts them (contract §6). */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export const DEFAULT_DAYS = 30;

/** The range a page shows: the URL's, else the last 30 days up to today (UTC). */
export function rangeOf(search: DateRangeSearch): { from: string; to: string } {
  const to = search.to ?? utcDay(new Date());
  const from =
    search.from ??
    utcDay(new Date(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_DAYS - 1) * 86_400_000));
  return from <= to ? { from, to } : { from: to, to: from };
}
