import { sql } from 'kysely';
import type { Address, SocialProfile } from '../db/schema.js';

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
