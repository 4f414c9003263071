const countryNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** A country's English name from its ISO code; the code itself when unknown. */
export function countryName(code: string): string {
  if (!code) return '';
  try {
    return countryNames.of(code) ?? code;
  } catch {
    return code;
  }
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['week', 604_800],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

/** "3 hours ago", "yesterday", "just now". */
export function ago(iso: string, now = Date.now()): string {
  const seconds = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

/** "Lyon, France", "France" or "": a city and a country code as one place. */
export function placeOf({ city, country }: { city: string; country: string }): string {
  return [city, countryName(country)].filter(Boolean).join(', ');
}

/** "1 contact", "2,500 contacts": a count and its noun (plural by -s). */
export function count(n: number, noun: string): string {
  return `${n.toLocaleString('en')} ${noun}${n === 1 ? '' : 's'}`;
}

/** A date and time in the person's own locale and time zone. */
export function dateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The path and query of a URL, for lists of pages on one site. */
export function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}
