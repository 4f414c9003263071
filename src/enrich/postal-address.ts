import type { Address } from '../db/schema.js';
import { isNode, textOf } from './json-ld.js';

const MAX_PART = 200;

const cap = (text: string) => text.slice(0, MAX_PART);

/** Countries spelled out in the languages company sites are mostly written in. */
const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'sv', 'da', 'nb', 'fi', 'pl', 'cs'];
const english = new Intl.DisplayNames(['en'], { type: 'region' });

/** Common spellings Intl does not give: alpha-3 codes and everyday names. */
const ALIASES: Record<string, string> = {
  usa: 'US',
  'u.s.': 'US',
  'u.s.a.': 'US',
  'united states of america': 'US',
  america: 'US',
  'u.k.': 'GB',
  'great britain': 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  'northern ireland': 'GB',
  holland: 'NL',
  gbr: 'GB',
  deu: 'DE',
  fra: 'FR',
  esp: 'ES',
  ita: 'IT',
  nld: 'NL',
  bel: 'BE',
  lux: 'LU',
  che: 'CH',
  aut: 'AT',
  swe: 'SE',
  nor: 'NO',
  dnk: 'DK',
  fin: 'FI',
  isl: 'IS',
  irl: 'IE',
  prt: 'PT',
  pol: 'PL',
  cze: 'CZ',
  svk: 'SK',
  hun: 'HU',
  rou: 'RO',
  bgr: 'BG',
  grc: 'GR',
  hrv: 'HR',
  svn: 'SI',
  est: 'EE',
  lva: 'LV',
  ltu: 'LT',
  tur: 'TR',
  isr: 'IL',
  are: 'AE',
  can: 'CA',
  mex: 'MX',
  bra: 'BR',
  arg: 'AR',
  chl: 'CL',
  col: 'CO',
  aus: 'AU',
  nzl: 'NZ',
  jpn: 'JP',
  chn: 'CN',
  kor: 'KR',
  ind: 'IN',
  sgp: 'SG',
  zaf: 'ZA',
};

const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();

let byName: Map<string, string> | null = null;

/** Country names → ISO codes, built once from Intl's region names in several languages. */
function countryNames(): Map<string, string> {
  if (byName) return byName;
  byName = new Map(Object.entries(ALIASES));
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const language of LANGUAGES) {
    const names = new Intl.DisplayNames([language], { type: 'region' });
    for (const a of letters) {
      for (const b of letters) {
        const code = a + b;
        if (canonical(code) !== code) continue;
        const name = names.of(code);
        if (name && name !== code && !byName.has(fold(name))) byName.set(fold(name), code);
      }
    }
  }
  return byName;
}

/** Region codes that are no country (or only a reserved one). */
const NOT_COUNTRIES = new Set([
  'EU',
  'EZ',
  'UN',
  'QO',
  'XA',
  'XB',
  'ZZ',
  'AC',
  'CP',
  'DG',
  'EA',
  'IC',
  'TA',
]);

/** The current code for a two-letter region code (`UK` → `GB`, `DD` → `DE`); null if none. */
function canonical(code: string): string | null {
  if (!/^[A-Z]{2}$/.test(code)) return null;
  try {
    const region = Intl.getCanonicalLocales(`und-${code}`)[0]?.slice(4) ?? '';
    return region.length === 2 && !NOT_COUNTRIES.has(region) && english.of(region) !== region
      ? region
      : null;
  } catch {
    return null;
  }
}

const isCountryCode = (code: string) => canonical(code) === code;

/** An ISO 3166 code for a code or a name Footfall can map; otherwise the text as given. */
export function countryCode(given: string): string {
  return (
    canonical(given.trim().toUpperCase()) ?? countryNames().get(fold(given)) ?? cap(given.trim())
  );
}

/** `Hauptstraße 5` or `221B Baker Street` as street and number; the whole as the street otherwise. */
function streetParts(line: string): Pick<Address, 'street' | 'street_number'> {
  const number = '\\d+[a-zA-Z]?(?:\\s?[-/]\\s?\\d+[a-zA-Z]?)?';
  const after = new RegExp(`^([^,\\d][^,]*?)\\s+(${number})$`).exec(line);
  if (after) return { street: after[1] ?? line, street_number: after[2] ?? '' };
  const before = new RegExp(`^(${number}),?\\s+([^,\\d][^,]*)$`).exec(line);
  if (before) return { street: before[2] ?? line, street_number: before[1] ?? '' };
  return { street: line, street_number: '' };
}

/**
 * A schema.org `PostalAddress` (or an address given as one line of text) as the fields of
 * an organisation's address; parts that are not given are left out.
 */
export function postalAddress(value: unknown, geo?: unknown): Partial<Address> {
  const address: Partial<Address> = {};
  if (typeof value === 'string' && textOf(value)) {
    address.full_address = cap(textOf(value));
  } else if (isNode(value)) {
    const line = cap(textOf(value.streetAddress));
    const postalCode = cap(textOf(value.postalCode));
    const city = cap(textOf(value.addressLocality));
    const state = cap(textOf(value.addressRegion));
    const country = value.addressCountry;
    const countryText = isNode(country) ? textOf(country.name) : textOf(country);
    const code = countryText ? countryCode(countryText) : '';
    const parts: Partial<Address> = {
      ...(line ? { address: line, ...streetParts(line) } : {}),
      postal_code: postalCode,
      city,
      state,
      country: code,
    };
    const countryLabel = isCountryCode(code) ? (english.of(code) ?? code) : code;
    parts.full_address = cap(
      [line, [postalCode, city].filter(Boolean).join(' '), state, countryLabel]
        .filter(Boolean)
        .join(', '),
    );
    for (const [key, text] of Object.entries(parts) as [keyof Address, string][]) {
      if (text) address[key] = text;
    }
  }
  if (isNode(geo)) {
    const latitude = coordinate(geo.latitude, 90);
    const longitude = coordinate(geo.longitude, 180);
    if (latitude && longitude) Object.assign(address, { latitude, longitude });
  }
  return address;
}

function coordinate(value: unknown, limit: number): string {
  const number = Number(textOf(value));
  return textOf(value) !== '' && Number.isFinite(number) && Math.abs(number) <= limit
    ? String(number)
    : '';
}
