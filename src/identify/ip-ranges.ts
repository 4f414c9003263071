import ipaddr from 'ipaddr.js';
import { type Kysely, sql } from 'kysely';
import { cachedLookup } from '../db/cached-lookup.js';
import type { Database } from '../db/schema.js';
import { rememberedByAddress } from './remembered.js';
import { atMostEvery } from './rescan.js';

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

interface StoredRange {
  domain: string;
  name: string;
  network: string;
}

/**
 * The ranges in memory: per prefix length present, the networks by their first address,
 * asked longest prefix first, as PostgreSQL's `>>=` with `ORDER BY masklen DESC` would.
 */
class RangeTable {
  private readonly byLength = new Map<string, Map<number, Map<bigint, StoredRange>>>();
  private lengths = new Map<string, number[]>();

  constructor(rows: StoredRange[]) {
    for (const row of rows) {
      const [address, length] = ipaddr.parseCIDR(row.network);
      const family = address.kind();
      const tables = this.byLength.get(family) ?? new Map<number, Map<bigint, StoredRange>>();
      this.byLength.set(family, tables);
      const table = tables.get(length) ?? new Map<bigint, StoredRange>();
      tables.set(length, table);
      table.set(masked(address, length), row);
    }
    for (const [family, tables] of this.byLength) {
      this.lengths.set(
        family,
        [...tables.keys()].sort((a, b) => b - a),
      );
    }
  }

  /** The longest range holding an address; the table never changes (a reload makes another). */
  readonly find = rememberedByAddress((ip) => this.search(ip));

  private search(ip: string): StoredRange | null {
    if (!ipaddr.isValid(ip)) return null;
    const address = ipaddr.process(ip);
    const tables = this.byLength.get(address.kind());
    if (!tables) return null;
    for (const length of this.lengths.get(address.kind()) ?? []) {
      const found = tables.get(length)?.get(masked(address, length));
      if (found) return found;
    }
    return null;
  }
}

/** The address's first `length` bits, the rest zero, as one number. */
function masked(address: ipaddr.IPv4 | ipaddr.IPv6, length: number): bigint {
  const bytes = address.toByteArray();
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  const bits = BigInt(bytes.length * 8);
  const keep = BigInt(length);
  return keep === 0n ? 0n : (value >> (bits - keep)) << (bits - keep);
}

const hintOf = (row: StoredRange): OrganisationHint => ({
  domain: row.domain,
  name: row.name,
  identification: {
    method: 'ip_range',
    evidence: { source: 'ip-ranges import (CSV)', network: row.network },
  },
});

/**
 * The operator's IP ranges (CSV import). Up to IN_MEMORY_MAX ranges are held in memory and
 * matched there, so the collector's answer path asks the database nothing per address; the
 * table is looked at again at most every CHECK_MS (one small query; read whole only when it
 * changed), so an import takes effect within that time without a restart. A larger table
 * is matched by PostgreSQL's GiST index on `cidr`, each address's answer cached for
 * CACHE_TTL_MS. A check that fails (the database out of reach) keeps what was loaded.
 */
export class IpRanges {
  static readonly CHECK_MS = 5_000;
  static readonly CACHE_TTL_MS = 30_000;
  static readonly IN_MEMORY_MAX = 200_000;
  private table: RangeTable | null = null;
  private version = '';
  private readonly reloaded = atMostEvery(IpRanges.CHECK_MS, () => this.reload().catch(() => {}));
  private readonly queried: (ip: string) => Promise<OrganisationHint | null>;

  constructor(private readonly db: Kysely<Database>) {
    this.queried = cachedLookup(
      async (ip) => {
        const row = await db
          .selectFrom('ip_ranges')
          .select(['domain', 'name', sql<string>`network::text`.as('network')])
          .where(sql<boolean>`network >>= ${ip}::inet`)
          .orderBy(sql`masklen(network)`, 'desc')
          .limit(1)
          .executeTakeFirst();
        return row ? hintOf(row) : undefined;
      },
      { max: 50_000, ttlMs: IpRanges.CACHE_TTL_MS },
    );
  }

  readonly lookup = async (ip: string): Promise<OrganisationHint | null> => {
    await this.reloaded();
    if (!this.table) return this.queried(ip);
    const row = this.table.find(ip);
    return row ? hintOf(row) : null;
  };

  private async reload(): Promise<void> {
    const { rows } = await sql<{ ranges: number; changed: string | null }>`
      SELECT count(*)::int AS ranges, max(imported_at)::text AS changed
      FROM (SELECT imported_at FROM ip_ranges LIMIT ${IpRanges.IN_MEMORY_MAX + 1}) r`.execute(
      this.db,
    );
    const { ranges = 0, changed = null } = rows[0] ?? {};
    if (ranges > IpRanges.IN_MEMORY_MAX) {
      this.table = null;
      this.version = '';
      return;
    }
    const version = `${ranges} ${changed}`;
    if (version === this.version && this.table) return;
    const all = await this.db
      .selectFrom('ip_ranges')
      .select(['domain', 'name', sql<string>`network::text`.as('network')])
      .execute();
    this.table = new RangeTable(all);
    this.version = version;
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
