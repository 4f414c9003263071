import { type Kysely, sql } from 'kysely';
import type { Address, Database, SocialProfile } from '../db/schema.js';

/*
 * An organisation's profile is its company-directory entry over what its own homepage says,
 * field by field (contract §16): the directory's value where it has one, else the site's.
 * These fragments are for queries over organisations aliased `o`, with the directory joined
 * as `c` and the site profile as `w` (`profileJoins`), so every place that shows or filters
 * on a profile merges it the same way.
 */

export const profileJoins = sql`LEFT JOIN companies c ON c.domain = o.domain
  LEFT JOIN company_sites w ON w.domain = o.domain`;

type SiteField = 'name' | 'logo' | 'description' | 'phone' | 'email' | 'founded' | 'size';

/** One text field, "" when neither has it. */
export const profileText = (field: SiteField) =>
  sql<string>`coalesce(nullif(${sql.ref(`c.${field}`)}, ''), ${sql.ref(`w.${field}`)}, '')`;

/** The name the API shows: the directory's, the site's, the resolver's, else the domain. */
export const profileName = sql<string>`coalesce(nullif(c.name, ''), nullif(w.name, ''),
  nullif(o.name, ''), o.domain)`;

/**
 * The address as a whole: parts of two addresses would not make one place, so the
 * directory's address wins when it has any part.
 */
export const profileAddress = sql<Partial<Address>>`CASE WHEN c.address <> '{}' THEN c.address
  ELSE coalesce(w.address, '{}') END`;

export const profileCountry = sql<string>`coalesce((${profileAddress}) ->> 'country', '')`;

/** The directory's profiles, and the site's for networks the directory does not name. */
export const profileProfiles = sql<SocialProfile[]>`coalesce(c.profiles, '[]'::jsonb) || coalesce(
  (SELECT jsonb_agg(p) FROM jsonb_array_elements(w.profiles) p
   WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(c.profiles) d
                     WHERE d ->> 'name' = p ->> 'name')), '[]'::jsonb)`;

/** The profile's name (the directory's, else its homepage's), else its resolver's, else its domain. */
export const nameOf = (row: { name: string | null; own_name: string; domain: string }) =>
  row.name || row.own_name || row.domain;

/**
 * The directory's website, else its domain's. Organisations known only by name or as a
 * network owner (`name:…`, `as<number>`) have no website.
 */
export const websiteOf = (row: { website: string | null; domain: string }) =>
  row.website || (/^[a-z0-9.-]+\.[a-z]{2,}$/.test(row.domain) ? `https://${row.domain}` : '');

/**
 * The workspace's organisations with their profiles: the company directory's entry over
 * what the company's homepage says, field by field (above), and where the
 * profile came from.
 */
export const withProfiles = (db: Kysely<Database>, workspaceId: string) =>
  db
    .selectFrom('organisations as o')
    .leftJoin('companies as c', 'c.domain', 'o.domain')
    .leftJoin('company_sites as w', 'w.domain', 'o.domain')
    .select([
      'o.id',
      'o.domain',
      'o.name as own_name',
      'o.created_at',
      'o.identification',
      'o.score',
      'o.score_reasons',
      'o.status',
      'o.owner_id',
      'c.website',
      'c.industry',
      profileText('name').as('name'),
      profileText('logo').as('logo'),
      profileText('description').as('description'),
      profileText('founded').as('founded'),
      profileText('size').as('size'),
      profileText('phone').as('phone'),
      profileText('email').as('email'),
      profileAddress.as('address'),
      profileProfiles.as('profiles'),
      sql<boolean>`c.domain IS NOT NULL`.as('in_directory'),
      sql<string | null>`CASE WHEN w.read_at IS NOT NULL THEN w.url END`.as('site_url'),
      'w.read_at as site_read_at',
    ])
    .where('o.workspace_id', '=', workspaceId);
