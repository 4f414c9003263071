import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import type { SiteProfile } from './site-profile.js';

/** A good read is read again after 30 days; a failed one is tried again after a day. */
const REFRESH = '30 days';
const RETRY = '1 day';

/**
 * How long a claimed domain stays with the server reading it: well past the 5 s read, so
 * only a server that died while reading gives its domains up, to be read elsewhere.
 */
export const LEASE_SECONDS = 60;

/**
 * Organisations keyed by a name that can be a website: not a network (`as<number>`) or
 * a record's name (`name:…`), and with a dot. `o` is the organisations alias.
 */
export const REAL_DOMAIN = sql`o.domain LIKE '%.%' AND o.domain NOT LIKE 'name:%' AND o.domain !~ '^as[0-9]+$'`;
const NOT_IN_DIRECTORY = sql`NOT EXISTS (SELECT 1 FROM companies c WHERE c.domain = o.domain)`;

/**
 * Notes the domains of organisations created since `since` (all when null) that have no
 * directory entry and no site row yet; answers the database's time of the look, from
 * which the next one can start.
 */
export async function noteNewDomains(db: Kysely<Database>, since: Date | null): Promise<Date> {
  const { rows } = await sql<{ at: Date }>`
    WITH noted AS (
      INSERT INTO company_sites (domain)
      SELECT DISTINCT o.domain FROM organisations o
      WHERE ${since ? sql`o.created_at >= ${since.toISOString()}::timestamptz AND` : sql``}
        ${REAL_DOMAIN} AND ${NOT_IN_DIRECTORY}
      ON CONFLICT (domain) DO NOTHING
      RETURNING 1)
    SELECT now() AS at`.execute(db);
  return rows[0]?.at ?? new Date();
}

/** Sites (`s`) to read: due, free, still an organisation's, and not in the directory. */
const DUE = sql`s.next_fetch_at <= now() AND (s.lease_until IS NULL OR s.lease_until <= now())
  AND EXISTS (SELECT 1 FROM organisations o WHERE o.domain = s.domain)
  AND NOT EXISTS (SELECT 1 FROM companies c WHERE c.domain = s.domain)`;

/** How many domains are due now. */
export async function countDueDomains(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ due: number }>`
    SELECT count(*)::int AS due FROM company_sites s WHERE ${DUE}`.execute(db);
  return rows[0]?.due ?? 0;
}

/**
 * Claims up to `limit` domains that are due (never read, or past their next read), still
 * belong to an organisation and have no directory entry, and leases them to the caller:
 * several servers never read one domain at once. The claim is an array taken once, not
 * `IN (SELECT … LIMIT …)`, which PostgreSQL may run again for every row (outbox/events.ts).
 */
export async function claimDueDomains(db: Kysely<Database>, limit: number): Promise<string[]> {
  const { rows } = await sql<{ domain: string }>`
    UPDATE company_sites SET lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
    WHERE domain = ANY(ARRAY(
      SELECT s.domain FROM company_sites s WHERE ${DUE}
      ORDER BY s.next_fetch_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED))
    RETURNING domain`.execute(db);
  return rows.map((row) => row.domain);
}

/**
 * Claims this one domain whether it is due or not (`footfall enrich`); false while another
 * server holds it.
 */
export async function claimDomain(db: Kysely<Database>, domain: string): Promise<boolean> {
  const { rows } = await sql`
    INSERT INTO company_sites (domain, lease_until)
    VALUES (${domain}, now() + make_interval(secs => ${LEASE_SECONDS}))
    ON CONFLICT (domain) DO UPDATE SET lease_until = excluded.lease_until
    WHERE company_sites.lease_until IS NULL OR company_sites.lease_until <= now()
    RETURNING domain`.execute(db);
  return rows.length > 0;
}

/**
 * Stores a good read (at `readAt`, now unless the demo says otherwise): its profile and
 * page, read again 30 days later; the lease ends.
 */
export async function saveSiteProfile(
  db: Kysely<Database>,
  domain: string,
  url: string,
  profile: SiteProfile,
  readAt?: Date,
): Promise<void> {
  const at = readAt ? sql`${readAt.toISOString()}::timestamptz` : sql`now()`;
  await sql`
    INSERT INTO company_sites (domain, status, name, logo, description, phone, email, founded,
      size, address, profiles, url, error, fetched_at, read_at, next_fetch_at, lease_until)
    VALUES (${domain}, 'ok', ${profile.name}, ${profile.logo}, ${profile.description},
      ${profile.phone}, ${profile.email}, ${profile.founded}, ${profile.size},
      ${JSON.stringify(profile.address)}::jsonb, ${JSON.stringify(profile.profiles)}::jsonb,
      ${url}, '', ${at}, ${at}, ${at} + ${REFRESH}::interval, NULL)
    ON CONFLICT (domain) DO UPDATE SET status = 'ok', name = excluded.name,
      logo = excluded.logo, description = excluded.description, phone = excluded.phone,
      email = excluded.email, founded = excluded.founded, size = excluded.size,
      address = excluded.address, profiles = excluded.profiles, url = excluded.url, error = '',
      fetched_at = excluded.fetched_at, read_at = excluded.read_at,
      next_fetch_at = excluded.next_fetch_at, lease_until = NULL`.execute(db);
}

/**
 * Stores a failed read, tried again in a day; what an earlier good read found stays (a
 * site down for a day keeps its profile). The lease ends.
 */
export async function saveSiteFailure(
  db: Kysely<Database>,
  domain: string,
  error: string,
): Promise<void> {
  await sql`
    UPDATE company_sites SET status = 'failed', error = ${error.slice(0, 300)},
      fetched_at = now(), next_fetch_at = now() + ${RETRY}::interval, lease_until = NULL
    WHERE domain = ${domain}`.execute(db);
}

/** The workspace's organisation domains that can have a site and have no directory entry. */
export async function workspaceDomains(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<{ domains: string[]; inDirectory: number }> {
  const { rows } = await sql<{ domain: string; in_directory: boolean }>`
    SELECT o.domain, NOT ${NOT_IN_DIRECTORY} AS in_directory FROM organisations o
    WHERE o.workspace_id = ${workspaceId} AND ${REAL_DOMAIN}
    ORDER BY o.domain`.execute(db);
  return {
    domains: rows.filter((row) => !row.in_directory).map((row) => row.domain),
    inDirectory: rows.filter((row) => row.in_directory).length,
  };
}
