import type { Static } from '@sinclair/typebox';
import type { Stats } from './schemas.js';
import type { DayRange, StatsRows } from './store.js';

const DAY_MS = 86_400_000;
const TOP = 10;

/** Every day from `first` to `last`, as YYYY-MM-DD. */
export function daysOf(range: DayRange): string[] {
  const days: string[] = [];
  const last = Date.parse(`${range.last}T00:00:00.000Z`);
  for (let at = Date.parse(`${range.first}T00:00:00.000Z`); at <= last; at += DAY_MS) {
    days.push(new Date(at).toISOString().slice(0, 10));
  }
  return days;
}

/** Most first, then alphabetically, so equal counts come out the same on every call. */
const top = <T>(items: T[], count: (item: T) => number, name: (item: T) => string) =>
  [...items]
    .sort((a, b) => count(b) - count(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0))
    .slice(0, TOP);

/** The rollups' rows as the API shows them: a day for every day of the range. */
export function presentStats(range: DayRange, rows: StatsRows): Static<typeof Stats> {
  const byDay = new Map(rows.days.map((row) => [row.day, row]));
  const profiles = (key: 'industry' | 'country') =>
    rows.profiles.flatMap((row) => {
      const value = row[key];
      return value ? [{ value, organisations: row.organisations }] : [];
    });
  const visitorsByDay = new Map(rows.visitorDays.map((row) => [row.day, row]));
  const days = daysOf(range).map((date) => {
    const row = byDay.get(date);
    const visitors = visitorsByDay.get(date);
    return {
      date,
      sessions: row?.sessions ?? 0,
      organisations: row?.organisations ?? 0,
      pageviews: Number(row?.pageviews ?? 0),
      visitors: visitors?.visitors ?? 0,
      identified_visitors: visitors?.identified_visitors ?? 0,
    };
  });
  const sum = (key: 'sessions' | 'pageviews') => days.reduce((total, day) => total + day[key], 0);
  return {
    days,
    totals: {
      visitors: rows.visitors.visitors,
      identified_visitors: rows.visitors.identified_visitors,
      sessions: sum('sessions'),
      organisations: rows.organisations,
      pageviews: sum('pageviews'),
    },
    top_pages: rows.pages.map((row) => ({ url: row.url, pageviews: Number(row.pageviews) })),
    top_sources: rows.sources.map((row) => ({
      source: row.source,
      sessions: Number(row.sessions),
    })),
    top_industries: top(
      profiles('industry'),
      (item) => item.organisations,
      (item) => item.value,
    ).map((item) => ({ industry: item.value, organisations: item.organisations })),
    top_countries: top(
      profiles('country'),
      (item) => item.organisations,
      (item) => item.value,
    ).map((item) => ({ country: item.value, organisations: item.organisations })),
    top_organisations: rows.leaders.map((row) => ({
      uuid: row.id,
      name: row.name,
      sessions: Number(row.sessions),
      pageviews: Number(row.pageviews),
    })),
  };
}
