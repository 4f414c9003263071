import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import type { OrganisationHint } from './ip-ranges.js';
import kinds from './network-kinds.json' with { type: 'json' };
import type { Resolver } from './resolver.js';

export type NetworkKind = 'isp' | 'mobile' | 'hosting' | 'business';

export interface NetworkOwner {
  asn: number;
  name: string;
  kind: NetworkKind;
}

const require = createRequire(import.meta.url);

/** The ip-location-db ASN data (RouteViews and DB-IP, CC BY 4.0) shipped in the npm registry. */
export function defaultAsnDatabases(): string[] {
  return ['asn-ipv4.csv', 'asn-ipv6.csv'].map((file) =>
    require.resolve(`@ip-location-db/asn/${file}`),
  );
}

const listed = new Map<number, NetworkKind>();
for (const [kind, asns] of Object.entries(kinds.asns)) {
  for (const asn of asns) listed.set(asn, kind as NetworkKind);
}
for (const asn of kinds.business) listed.set(asn, 'business');
const patterns = kinds.patterns.map((rule) => ({
  kind: rule.kind as NetworkKind,
  pattern: new RegExp(rule.pattern, 'i'),
}));

/** The kind of network an owner runs: a listed ASN first, then the name patterns, in order. */
export function classify(asn: number, name: string): NetworkKind {
  return listed.get(asn) ?? patterns.find((rule) => rule.pattern.test(name))?.kind ?? 'business';
}

interface Table<T> {
  starts: T[];
  ends: T[];
  asns: number[];
  names: string[];
}

const toNumber = (address: ipaddr.IPv4 | ipaddr.IPv6): bigint =>
  address.toByteArray().reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);

/**
 * IP → network owner from CSV files of `start,end,asn,name` ranges (the ip-location-db
 * layout), searched by bisection. Loaded once per process.
 */
export class NetworkOwners {
  private constructor(private readonly table: Table<bigint>) {}

  static async load(paths: string[]): Promise<NetworkOwners> {
    const rows: { start: bigint; end: bigint; asn: number; name: string }[] = [];
    for (const path of paths) {
      for (const line of (await readFile(path, 'utf8')).split('\n')) {
        const [start, end, asn] = line.split(',', 3);
        if (!start || !end || !asn) continue;
        let name = line.slice(start.length + end.length + asn.length + 3).trim();
        if (name.startsWith('"')) name = name.slice(1, -1).replaceAll('""', '"');
        try {
          // IPv4 and IPv6 share one number line: v4 as ::ffff:a.b.c.d.
          const from = ipaddr.process(start);
          const to = ipaddr.process(end);
          const offset = from.kind() === 'ipv4' ? 0xffff00000000n : 0n;
          rows.push({
            start: toNumber(from) + offset,
            end: toNumber(to) + offset,
            asn: Number(asn),
            name,
          });
        } catch {}
      }
    }
    rows.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    return new NetworkOwners({
      starts: rows.map((r) => r.start),
      ends: rows.map((r) => r.end),
      asns: rows.map((r) => r.asn),
      names: rows.map((r) => r.name),
    });
  }

  lookup(ip: string): NetworkOwner | null {
    if (!ipaddr.isValid(ip)) return null;
    const address = ipaddr.process(ip);
    const value = toNumber(address) + (address.kind() === 'ipv4' ? 0xffff00000000n : 0n);
    const { starts, ends } = this.table;
    let low = 0;
    let high = starts.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if ((starts[middle] as bigint) <= value) low = middle + 1;
      else high = middle - 1;
    }
    if (high < 0 || value > (ends[high] as bigint)) return null;
    const asn = this.table.asns[high] as number;
    const name = this.table.names[high] as string;
    return { asn, name, kind: classify(asn, name) };
  }
}

const loaded = new Map<string, Promise<NetworkOwners>>();

/** The data for these files, loaded once per process (a few seconds for the bundled data). */
export function networkOwners(paths: string[]): Promise<NetworkOwners> {
  const key = paths.join('\n');
  let owners = loaded.get(key);
  if (!owners) {
    owners = NetworkOwners.load(paths);
    loaded.set(key, owners);
    owners.catch(() => loaded.delete(key));
  }
  return owners;
}

/**
 * The network owner, when it is a business: ISP, mobile and hosting networks name no
 * organisation. Its key is `as<number>`, as the data carries no domain. The data loads on
 * first use, once per process.
 */
export const networkOwnerResolver = (paths: string[]): Resolver => ({
  name: 'network_owner',
  async resolve(clues) {
    const owner = (await networkOwners(paths)).lookup(clues.ip);
    return owner && owner.kind === 'business'
      ? ({ domain: `as${owner.asn}`, name: owner.name } satisfies OrganisationHint)
      : null;
  },
});
