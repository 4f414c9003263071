import { type Kysely, sql } from 'kysely';
import { cachedLookup } from '../db/cached-lookup.js';
import type { Database } from '../db/schema.js';

/** How an organisation was found, and on what evidence (shown on the Organisation). */
export interface OrganisationIdentification {
  method: 'email_domain' | 'ip_range' | 'network_owner' | 'reverse_dns' | 'registration';
  evidence: Record<string, unknown>;
}

/** What a resolver says about who is behind a visit. */
export interface OrganisationHint {
  domain: string;
  name: string;
  /** Set by the resolver that found it; recorded when the organisation is created. */
  identification?: OrganisationIdentification;
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
      async (ip) => {
        const row = await db
          .selectFrom('ip_ranges')
          .select(['domain', 'name', sql<string>`network::text`.as('network')])
          .where(sql<boolean>`network >>= ${ip}::inet`)
          .orderBy(sql`masklen(network)`, 'desc')
          .limit(1)
          .executeTakeFirst();
        return row
          ? {
              domain: row.domain,
              name: row.name,
              identification: {
                method: 'ip_range' as const,
                evidence: { source: 'ip-ranges import (CSV)', network: row.network },
              },
            }
          : undefined;
      },
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
