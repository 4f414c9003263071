import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/schema.js';

/** What an IP range says about who is behind it. */
export interface OrganisationHint {
  domain: string;
  name: string;
}

const NONE = Symbol('none');

/**
 * The operator's IP ranges (CSV import), matched longest-prefix first by PostgreSQL's GiST
 * index on `cidr`. Answers are cached per address for a short time, so an import takes
 * effect within CACHE_TTL_MS without a restart.
 */
export class IpRanges {
  static readonly CACHE_TTL_MS = 30_000;
  private readonly cache = new LRUCache<string, OrganisationHint | typeof NONE>({
    max: 50_000,
    ttl: IpRanges.CACHE_TTL_MS,
  });

  constructor(private readonly db: Kysely<Database>) {}

  async lookup(ip: string): Promise<OrganisationHint | null> {
    const cached = this.cache.get(ip);
    if (cached !== undefined) return cached === NONE ? null : cached;
    const row = await this.db
      .selectFrom('ip_ranges')
      .select(['domain', 'name'])
      .where(sql<boolean>`network >>= ${ip}::inet`)
      .orderBy(sql`masklen(network)`, 'desc')
      .limit(1)
      .executeTakeFirst();
    this.cache.set(ip, row ?? NONE);
    return row ?? null;
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
