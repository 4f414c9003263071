import ipaddr from 'ipaddr.js';
import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/schema.js';
import type { Signal } from './signals.js';

/** A registered network as its RDAP record was judged. Its bounds are published, not a visitor's. */
export interface RegisteredNetwork {
  /** First and last address of the registration's range. */
  start: string;
  end: string;
  handle: string;
  /** The registration signal. */
  signal: Signal;
}

/** An autonomous system as its RDAP record was read: the domain its registration gives. */
export interface Autnum {
  asn: number;
  /** Its common name (the registration's), or the registry name when the record has none. */
  name: string;
  domain: string | null;
  signal: Signal;
}

const HOUR = 3_600_000;
/** PTR answers live in memory only, at most a day (contract §16). */
export const PTR_TTL_MS = 24 * HOUR;
/** RDAP registrations change rarely: a month in the database and in memory. */
export const RDAP_TTL_MS = 30 * 24 * HOUR;
/** A lookup that failed (timeout, refusal, no answer) is tried again after an hour. */
export const RETRY_MS = HOUR;

// Ranges narrower than these may single out one subscriber, so they stay in memory (a day)
// and never reach the database: a /32 registration's bounds would be a visitor's address.
const SMALLEST_STORED = { ipv4: 8n, ipv6: 1n << 64n };

type Family = 'ipv4' | 'ipv6';
interface Indexed extends RegisteredNetwork {
  family: Family;
  from: bigint;
  to: bigint;
  expiresAt: number;
}

/** An address as a number and its family; null when it is not an address. */
export function addressNumber(address: string): { family: Family; value: bigint } | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.process(address);
  let value = 0n;
  for (const byte of parsed.toByteArray()) value = (value << 8n) | BigInt(byte);
  return { family: parsed.kind(), value };
}

/**
 * Registered networks in memory, found by containment, most specific first. Registrations
 * nest (an allocation holds assignments), so among the ranges that start at or below an
 * address, the first that reaches it going down from the nearest start is the narrowest.
 */
export class NetworkIndex {
  private readonly sorted: Record<Family, Indexed[]> = { ipv4: [], ipv6: [] };
  private readonly entries: LRUCache<string, Indexed>;

  constructor(max = 50_000) {
    this.entries = new LRUCache({
      max,
      dispose: (entry) => {
        const list = this.sorted[entry.family];
        const at = list.indexOf(entry);
        if (at !== -1) list.splice(at, 1);
      },
    });
  }

  get size(): number {
    return this.entries.size;
  }

  add(network: RegisteredNetwork, ttlMs: number): void {
    const from = addressNumber(network.start);
    const to = addressNumber(network.end);
    if (!from || !to || from.family !== to.family || from.value > to.value) return;
    const key = `${network.start}-${network.end}`;
    this.entries.delete(key);
    const entry: Indexed = {
      ...network,
      family: from.family,
      from: from.value,
      to: to.value,
      expiresAt: Date.now() + ttlMs,
    };
    const list = this.sorted[entry.family];
    // By start, and the wider of two with one start first, so the narrower is met first below.
    let at = list.findIndex(
      (e) => e.from > entry.from || (e.from === entry.from && e.to < entry.to),
    );
    if (at === -1) at = list.length;
    list.splice(at, 0, entry);
    this.entries.set(key, entry);
  }

  /** The narrowest network holding the address, if one is known. */
  find(address: string): RegisteredNetwork | undefined {
    const wanted = addressNumber(address);
    if (!wanted) return undefined;
    const list = this.sorted[wanted.family];
    // The last range starting at or below the address (binary search), then down from it.
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((list[middle] as Indexed).from <= wanted.value) low = middle + 1;
      else high = middle;
    }
    // A handful of neighbours is enough: disjoint ranges below the address are skipped, and
    // a miss only sends the question to the database.
    for (let at = low - 1; at >= 0 && at >= low - 64; at--) {
      const entry = list[at] as Indexed;
      if (entry.to < wanted.value) continue;
      const key = `${entry.start}-${entry.end}`;
      if (entry.expiresAt <= Date.now()) {
        this.entries.delete(key);
        return this.find(address);
      }
      this.entries.get(key); // most recently used
      return { start: entry.start, end: entry.end, handle: entry.handle, signal: entry.signal };
    }
    return undefined;
  }
}

/** Whether a range is wide enough to keep in the database (see SMALLEST_STORED). */
export function storable(network: Pick<RegisteredNetwork, 'start' | 'end'>): boolean {
  const from = addressNumber(network.start);
  const to = addressNumber(network.end);
  if (!from || !to || from.family !== to.family) return false;
  return to.value - from.value + 1n >= SMALLEST_STORED[from.family];
}

/**
 * What the lookups learnt, in memory for the collector's path (which reads nothing else)
 * and, for RDAP, in the database for 30 days, so a restart or another server does not ask
 * the registries again. Failures are remembered in memory for an hour.
 */
export class LookupCaches {
  private readonly ptr = new LRUCache<string, Signal>({ max: 100_000, ttl: PTR_TTL_MS });
  private readonly networks = new NetworkIndex();
  private readonly autnums = new LRUCache<number, Autnum>({ max: 100_000, ttl: RDAP_TTL_MS });
  /** `network <address>` or `autnum <asn>`: asked, nothing learnt; asked again after RETRY_MS. */
  private readonly failed = new LRUCache<string, true>({ max: 100_000, ttl: RETRY_MS });

  constructor(private readonly db: Kysely<Database>) {}

  // --- memory: the collector's path -------------------------------------------------------

  /** The judged PTR of an address; undefined when not asked (or forgotten). */
  reverseDns(address: string): Signal | undefined {
    return this.ptr.get(address);
  }

  /** The narrowest registered network of an address; null when its lookup failed lately. */
  network(address: string): RegisteredNetwork | null | undefined {
    return (
      this.networks.find(address) ?? (this.failed.has(`network ${address}`) ? null : undefined)
    );
  }

  /** What the AS's registration gives; null when its lookup failed lately. */
  autnum(asn: number): Autnum | null | undefined {
    return this.autnums.get(asn) ?? (this.failed.has(`autnum ${asn}`) ? null : undefined);
  }

  rememberReverseDns(address: string, signal: Signal, ttlMs = PTR_TTL_MS): void {
    this.ptr.set(address, signal, { ttl: Math.min(ttlMs, PTR_TTL_MS) });
  }

  networkFailed(address: string): void {
    this.failed.set(`network ${address}`, true);
  }

  autnumFailed(asn: number): void {
    this.failed.set(`autnum ${asn}`, true);
  }

  // --- the database: the worker's path ----------------------------------------------------

  /** The narrowest stored network holding the address, into memory as well. */
  async storedNetwork(address: string): Promise<RegisteredNetwork | null> {
    if (!ipaddr.isValid(address)) return null;
    // An IPv4-mapped IPv6 address is looked for among IPv4 networks, as in memory.
    const plain = ipaddr.process(address).toString();
    const row = await this.db
      .selectFrom('rdap_networks')
      .select([
        sql<string>`host(start_address)`.as('start'),
        sql<string>`host(end_address)`.as('end'),
        'handle',
        'judged',
        'fetched_at',
      ])
      .where(sql<boolean>`start_address <= ${plain}::inet AND end_address >= ${plain}::inet`)
      .where('fetched_at', '>', new Date(Date.now() - RDAP_TTL_MS))
      .orderBy('start_address', 'desc')
      .orderBy('end_address', 'asc')
      .limit(1)
      .executeTakeFirst();
    if (!row) return null;
    const network = {
      start: row.start,
      end: row.end,
      handle: row.handle,
      signal: row.judged as unknown as Signal,
    };
    this.networks.add(network, row.fetched_at.getTime() + RDAP_TTL_MS - Date.now());
    return network;
  }

  /** Keeps a judged registration: in memory, and in the database when its range is wide. */
  async saveNetwork(network: RegisteredNetwork): Promise<void> {
    if (!storable(network)) {
      this.networks.add(network, PTR_TTL_MS);
      return;
    }
    this.networks.add(network, RDAP_TTL_MS);
    await sql`
      INSERT INTO rdap_networks (start_address, end_address, handle, judged)
      VALUES (${network.start}::inet, ${network.end}::inet, ${network.handle},
              ${JSON.stringify(network.signal)}::jsonb)
      ON CONFLICT (start_address, end_address) DO UPDATE
        SET handle = excluded.handle, judged = excluded.judged, fetched_at = now()`.execute(
      this.db,
    );
  }

  async storedAutnum(asn: number): Promise<Autnum | null> {
    const row = await this.db
      .selectFrom('rdap_autnums')
      .select(['name', 'domain', 'judged', 'fetched_at'])
      .where('asn', '=', String(asn))
      .where('fetched_at', '>', new Date(Date.now() - RDAP_TTL_MS))
      .executeTakeFirst();
    if (!row) return null;
    const autnum = {
      asn,
      name: row.name,
      domain: row.domain,
      signal: row.judged as unknown as Signal,
    };
    this.autnums.set(asn, autnum, { ttl: row.fetched_at.getTime() + RDAP_TTL_MS - Date.now() });
    return autnum;
  }

  async saveAutnum(autnum: Autnum): Promise<void> {
    this.autnums.set(autnum.asn, autnum);
    await sql`
      INSERT INTO rdap_autnums (asn, name, domain, judged)
      VALUES (${autnum.asn}, ${autnum.name}, ${autnum.domain}, ${JSON.stringify(autnum.signal)}::jsonb)
      ON CONFLICT (asn) DO UPDATE
        SET name = excluded.name, domain = excluded.domain, judged = excluded.judged,
            fetched_at = now()`.execute(this.db);
  }
}

/** Removes registrations older than 30 days (a background job); answers how many went. */
export async function pruneLookupCaches(db: Kysely<Database>): Promise<number> {
  const before = new Date(Date.now() - RDAP_TTL_MS);
  const networks = await db.deleteFrom('rdap_networks').where('fetched_at', '<=', before).execute();
  const autnums = await db.deleteFrom('rdap_autnums').where('fetched_at', '<=', before).execute();
  return Number(networks[0]?.numDeletedRows ?? 0) + Number(autnums[0]?.numDeletedRows ?? 0);
}
