import { type Kysely, type Selectable, sql } from 'kysely';
import { getDomain } from 'tldts';
import type { Address, CompanyTable, Database, SocialProfile } from '../db/schema.js';

/** One company of the directory, as an import gives it; "" means "not given". */
export type CompanyRow = Omit<Selectable<CompanyTable>, 'address' | 'profiles' | 'updated_at'> & {
  address: Partial<Address>;
  profiles: SocialProfile[];
};

const TEXT_FIELDS = [
  'name',
  'website',
  'logo',
  'founded',
  'size',
  'industry',
  'phone',
  'email',
  'description',
] as const;
export const ADDRESS_FIELDS: (keyof Address)[] = [
  'street',
  'address',
  'full_address',
  'city',
  'state',
  'street_number',
  'postal_code',
  'country',
  'latitude',
  'longitude',
];
const SOCIAL_COLUMNS = {
  linkedin_url: 'linkedin',
  twitter_url: 'twitter',
  facebook_url: 'facebook',
};
const MAX_TEXT = 2000;

/** `acme.com` from `acme.com`, `www.acme.com` or `https://www.acme.com/about`; null if none. */
export function registrableDomain(raw: string): string | null {
  const text = raw.trim().toLowerCase();
  if (!text || /\s/.test(text)) return null;
  return getDomain(text.includes('://') ? text : `http://${text}`);
}

function text(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') throw new Error(`${field} must be text`);
  if (value.length > MAX_TEXT) throw new Error(`${field} is longer than ${MAX_TEXT} characters`);
  return value.trim();
}

const handleOf = (url: string) => url.replace(/\/+$/, '').split('/').pop() ?? '';

/**
 * Checks one directory record, a JSONL object or a CSV row with flat columns
 * (`street`, `city`, …, `linkedin_url`), and returns the row or why it is refused.
 */
export function companyRow(record: Record<string, unknown>): CompanyRow | string {
  const domain = registrableDomain(typeof record.domain === 'string' ? record.domain : '');
  if (!domain) return `"${String(record.domain ?? '')}" is not a domain name`;
  try {
    const row: CompanyRow = {
      domain,
      ...(Object.fromEntries(
        TEXT_FIELDS.map((field) => [field, text(record[field], field)]),
      ) as Pick<CompanyRow, (typeof TEXT_FIELDS)[number]>),
      address: {},
      profiles: [],
    };
    const nested = record.address;
    const address =
      typeof nested === 'object' && nested !== null ? (nested as Record<string, unknown>) : record;
    if (typeof nested === 'string' && record.street === undefined)
      row.address.address = text(nested, 'address');
    for (const field of ADDRESS_FIELDS) {
      const value = text(address[field], `address.${field}`);
      if (value) row.address[field] = value;
    }
    if (Array.isArray(record.profiles)) {
      row.profiles = record.profiles.map((profile, index) => {
        const p = (profile ?? {}) as Record<string, unknown>;
        const url = text(p.url, `profiles.${index}.url`);
        return {
          name: text(p.name, `profiles.${index}.name`),
          handle: text(p.handle, `profiles.${index}.handle`) || handleOf(url),
          url,
        };
      });
    }
    for (const [column, name] of Object.entries(SOCIAL_COLUMNS)) {
      const url = text(record[column], column);
      if (url) row.profiles.push({ name, handle: handleOf(url), url });
    }
    return row;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Inserts or updates companies by domain: what a row gives replaces what was there, what it
 * leaves out stays, so importing the same file twice changes nothing.
 */
export async function upsertCompanies(db: Kysely<Database>, given: CompanyRow[]): Promise<void> {
  // One statement may touch a row once: of a domain given twice, the later line wins.
  const rows = [...new Map(given.map((row) => [row.domain, row])).values()];
  if (rows.length === 0) return;
  const column = (pick: (row: CompanyRow) => string) => rows.map(pick);
  const keep = (field: string) =>
    sql.raw(
      `${field} = CASE WHEN excluded.${field} <> '' THEN excluded.${field} ELSE companies.${field} END`,
    );
  await sql`
    INSERT INTO companies (domain, name, website, logo, founded, size, industry, phone, email,
                           description, address, profiles)
    SELECT * FROM unnest(
      ${column((r) => r.domain)}::text[], ${column((r) => r.name)}::text[],
      ${column((r) => r.website)}::text[], ${column((r) => r.logo)}::text[],
      ${column((r) => r.founded)}::text[], ${column((r) => r.size)}::text[],
      ${column((r) => r.industry)}::text[], ${column((r) => r.phone)}::text[],
      ${column((r) => r.email)}::text[], ${column((r) => r.description)}::text[],
      ${column((r) => JSON.stringify(r.address))}::jsonb[],
      ${column((r) => JSON.stringify(r.profiles))}::jsonb[])
    ON CONFLICT (domain) DO UPDATE SET
      ${sql.join(TEXT_FIELDS.map(keep), sql`, `)},
      address = companies.address || excluded.address,
      profiles = CASE WHEN excluded.profiles <> '[]' THEN excluded.profiles ELSE companies.profiles END,
      updated_at = now()`.execute(db);
}
