import type { Address } from '../db/schema.js';

/*
 * The demo companies' profiles beyond name, industry and size: a logo, a description, an
 * address. Logos are small SVGs in `data:` URIs, so a fresh clone's demo shows them with no
 * internet and no route of its own (the dashboard's image policy allows `data:`), and API
 * clients get a logo they can show as well. Phone numbers are only given where a national
 * regulator keeps numbers for fiction (UK, North America, Australia); the others have none.
 */

const COLOURS = ['#2f5bd3', '#0f8a6b', '#c2410c', '#7c3aed', '#be123c', '#0e7490', '#a16207'];

/** Simple marks, no letters: a logo should not look like the dashboard's initials fallback. */
const MARKS = [
  (c: string) => `<circle cx="32" cy="32" r="17" fill="none" stroke="${c}" stroke-width="8"/>`,
  (c: string) => `<path d="M32 12 54 50H10Z" fill="${c}"/>`,
  (c: string) => `<path d="M32 8 56 32 32 56 8 32Z" fill="${c}"/>`,
  (c: string) =>
    `<rect x="12" y="30" width="10" height="22" fill="${c}"/><rect x="27" y="20" width="10" height="32" fill="${c}"/><rect x="42" y="10" width="10" height="42" fill="${c}"/>`,
  (c: string) =>
    `<circle cx="25" cy="32" r="15" fill="${c}"/><circle cx="39" cy="32" r="15" fill="${c}" fill-opacity=".55"/>`,
  (c: string) => `<path d="M12 52C12 26 26 12 52 12 52 38 38 52 12 52Z" fill="${c}"/>`,
];

/** The i-th demo company's logo: a coloured mark on a tinted square, as an SVG data URI. */
export function demoLogo(i: number): string {
  const colour = COLOURS[i % COLOURS.length] as string;
  const mark = MARKS[Math.floor(i / COLOURS.length + i) % MARKS.length] as (c: string) => string;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="${colour}" fill-opacity=".12"/>${mark(colour)}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

const WHAT_THEY_DO: Record<string, string> = {
  Wholesale: 'supplies shops and restaurants with specialty goods from its own warehouses',
  Pharmaceuticals: 'develops and manufactures prescription medicines',
  Manufacturing: 'builds industrial robots and the software that runs them',
  Logistics: 'moves freight by road, rail and sea for manufacturers and retailers',
  Software: 'makes software that helps teams find answers in their data',
  Healthcare: 'runs clinics and digital health services',
  Energy: 'produces and trades electricity and gas',
  'Food & Beverage': 'makes food and drink sold in shops and restaurants',
  Travel: 'plans business and leisure travel',
  Research: 'does contract research for industry and government',
  Finance: 'offers banking for companies and private clients',
  Media: 'publishes books, magazines and video',
  Aviation: 'flies passengers and cargo',
  Insurance: 'insures companies and households',
  Retail: 'sells its own range online and in its shops',
  Education: 'teaches design, art and media',
  Consulting: 'advises companies on strategy and operations',
  'Non-profit': 'runs a museum of science and technology open to everyone',
};

export function demoDescription(name: string, industry: string, city: string): string {
  return `${name} ${WHAT_THEY_DO[industry] ?? 'serves customers worldwide'}. Based in ${city}.`;
}

/** A street, its number and a postal code for each demo city, in the country's own order. */
const STREETS: Record<string, [street: string, number: string, postalCode: string]> = {
  London: ['Baker Street', '221', 'NW1 6XE'],
  Basel: ['Freie Strasse', '34', '4001'],
  Munich: ['Leopoldstraße', '120', '80802'],
  Rotterdam: ['Coolsingel', '42', '3011 AD'],
  Dublin: ['Harcourt Street', '18', 'D02 W924'],
  'Tel Aviv': ['Rothschild Boulevard', '45', '6578403'],
  Boston: ['Boylston Street', '800', '02199'],
  Houston: ['Louisiana Street', '1200', '77002'],
  Napa: ['Main Street', '1400', '94559'],
  Barcelona: ['Carrer de Pau Claris', '97', '08009'],
  Cambridge: ['Hills Road', '60', 'CB2 1NT'],
  'Frankfurt am Main': ['Taunusanlage', '12', '60325'],
  Lucerne: ['Haldenstrasse', '23', '6006'],
  Seattle: ['Pine Street', '1501', '98101'],
  Hartford: ['Asylum Street', '151', '06103'],
  Innsbruck: ['Maria-Theresien-Straße', '18', '6020'],
  Stockholm: ['Sveavägen', '44', '111 34'],
  'Los Angeles': ['Wilshire Boulevard', '5900', '90036'],
  Lyon: ['Rue de la République', '20', '69002'],
  Milan: ['Via Tortona', '31', '20144'],
  Chicago: ['North Wacker Drive', '150', '60606'],
  Melbourne: ['Collins Street', '101', '3000'],
  Toronto: ['King Street West', '200', 'M5H 3T4'],
  Edinburgh: ['George Street', '82', 'EH2 3BU'],
  Hamburg: ['Jungfernstieg', '7', '20354'],
  Copenhagen: ['Vesterbrogade', '6', '1620'],
  Oslo: ['Karl Johans gate', '27', '0159'],
  Portland: ['Southwest Morrison Street', '700', '97205'],
  Paris: ['Rue de Rivoli', '88', '75004'],
  Sydney: ['George Street', '320', '2000'],
  Utrecht: ['Oudegracht', '158', '3511 AZ'],
  Vienna: ['Mariahilfer Straße', '77', '1060'],
};

const NUMBER_FIRST = new Set(['GB', 'US', 'IE', 'IL', 'AU', 'CA', 'FR']);
const countryNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** The address of a demo company in `city`, every part filled. */
export function demoAddress(
  city: string,
  country: string,
  latitude: number,
  longitude: number,
): Partial<Address> {
  const [street, number, postalCode] = STREETS[city] ?? ['Main Street', '1', ''];
  const line = NUMBER_FIRST.has(country) ? `${number} ${street}` : `${street} ${number}`;
  const place = ['GB', 'US', 'CA', 'AU'].includes(country)
    ? `${city} ${postalCode}`
    : `${postalCode} ${city}`;
  return {
    street,
    street_number: number,
    address: line,
    postal_code: postalCode,
    city,
    country,
    full_address: `${line}, ${place}, ${countryNames.of(country) ?? country}`,
    latitude: String(latitude),
    longitude: String(longitude),
  };
}

/** A number kept for fiction in the company's country, or "" where there is none. */
export function demoPhone(country: string, i: number): string {
  const tail = String(i).padStart(2, '0');
  if (country === 'GB') return `+44 20 7946 01${tail}`;
  if (country === 'US' || country === 'CA') return `+1 202 555 01${tail}`;
  if (country === 'AU') return `+61 2 5550 01${tail}`;
  return '';
}
