import { type Kysely, sql } from 'kysely';
import { cachedLookup } from '../db/cached-lookup.js';
import type { Database } from '../db/schema.js';

/** What an IP range says about who is behind it. */
export interface OrganisationHint {
  domain: string;
  name: string;
}

/**
 * The operator's IP ranges (CSV import), matched longest-prefix first by PostgreSQL's GiST
 * index on `cidr`. Answers are cached per address for a short time, so an import takes
 * effect within CACHE_TTL_MS without a restart.
 */
export class IpRanges {
  static readonly CACHE_TTL_MS = 30_000;
  readonly lookup: (ip: string) => Promise<OrganisationHint | null>;

  constructor(db: Kysely<Database>) {
    this.lookup = cachedLookup(
      (ip) =>
        db
          .selectFrom('ip_ranges')
          .select(['domain', 'name'])
          .where(sql<boolean>`network >>= ${ip}::inet`)
          .orderBy(sql`masklen(network)`, 'desc')
          .limit(1)
          .executeTakeFirst(),
      { max: 50_000, ttlMs: IpRanges.CACHE_TTL_MS },
    );
  }
}

export interface IpRangeRow {
  network: string;
  domain: string;
  name: string;
}

/** Inserts or replaces ranges by network, in one statement per batch. */
export async function upsertIpRanges(db: Kysely<Database>, rows: IpRangeRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    INSERT INTO ip_ranges (network, domain, name)
    SELECT * FROM unnest(${rows.map((r) => r.network)}::cidr[], ${rows.map((r) => r.domain)}::text[],
                         ${rows.map((r) => r.name)}::text[])
    ON CONFLICT (network) DO UPDATE
      SET domain = excluded.domain, name = excluded.name, imported_at = now()`.execute(db);
}
