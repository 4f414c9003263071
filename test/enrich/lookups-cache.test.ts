import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import {
  LookupCaches,
  NetworkIndex,
  pruneLookupCaches,
  type RegisteredNetwork,
  storable,
} from '../../src/enrich/cache.js';
import { HostGate, RateLimited } from '../../src/enrich/host-gate.js';
import { DEFAULT_LIMITS, LookupQueue } from '../../src/enrich/lookups.js';
import type { Signal } from '../../src/enrich/signals.js';
import { onlineSources } from '../../src/enrich/sources.js';
import { defaultCityDatabases, GeoLocator } from '../../src/identify/geo.js';
import { NetworkOverrides } from '../../src/identify/network-overrides.js';
import { defaultAsnDatabases, networkJudgements } from '../../src/identify/network-owner.js';
import { createTestDatabase } from '../helpers/app.js';
import { startDnsServer } from '../helpers/dns-server.js';
import { until } from '../helpers/wait.js';

const judged = (value: string, verdict: Signal['verdict'] = 'provider'): Signal => ({
  signal: 'registration',
  value,
  verdict,
});
const net = (start: string, end: string, value: string): RegisteredNetwork => ({
  start,
  end,
  handle: value,
  signal: judged(value),
});

// An ISP's allocation, a customer's /27 in it and a /29 in that; an IPv6 /32 and a /48.
const ALLOCATION = net('192.0.2.0', '192.0.2.255', 'EXAMPLE-ISP');
const CUSTOMER = net('192.0.2.0', '192.0.2.31', 'ACME-NET');
const SMALL = net('192.0.2.8', '192.0.2.15', 'ACME-DMZ');
const ALLOCATION6 = net('2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'EXAMPLE-ISP-V6');
const CUSTOMER6 = net('2001:db8:ac3e::', '2001:db8:ac3e:ffff:ffff:ffff:ffff:ffff', 'ACME-NET6');

describe('registered networks in memory', () => {
  it('finds the narrowest network holding an address, whatever the order they came in', () => {
    const index = new NetworkIndex();
    for (const network of [CUSTOMER, SMALL, ALLOCATION6, ALLOCATION, CUSTOMER6]) {
      index.add(network, 60_000);
    }
    expect(index.find('192.0.2.9')?.handle).toBe('ACME-DMZ');
    expect(index.find('192.0.2.20')?.handle).toBe('ACME-NET');
    expect(index.find('192.0.2.200')?.handle).toBe('EXAMPLE-ISP');
    expect(index.find('2001:db8:ac3e:1::7')?.handle).toBe('ACME-NET6');
    expect(index.find('2001:db8:1::7')?.handle).toBe('EXAMPLE-ISP-V6');
    expect(index.find('198.51.100.7')).toBeUndefined();
    // IPv4 and IPv6 are apart: an IPv4-mapped address is judged as the IPv4 it carries.
    expect(index.find('::ffff:192.0.2.9')?.handle).toBe('ACME-DMZ');
  });

  it('forgets a network when its time is up, and the least used when full', async () => {
    const index = new NetworkIndex(2);
    index.add(ALLOCATION, 60_000);
    index.add(SMALL, 20);
    await sleep(40);
    expect(index.find('192.0.2.9')?.handle).toBe('EXAMPLE-ISP');
    index.add(CUSTOMER, 60_000);
    index.add(CUSTOMER6, 60_000);
    expect(index.size).toBe(2);
    expect(index.find('192.0.2.200')).toBeUndefined();
  });

  it('keeps in the database only ranges too wide to single out a subscriber', () => {
    expect(storable(SMALL)).toBe(true);
    expect(storable(net('192.0.2.8', '192.0.2.11', 'FOUR'))).toBe(false);
    expect(storable(net('192.0.2.9', '192.0.2.9', 'ONE'))).toBe(false);
    expect(storable(CUSTOMER6)).toBe(true);
    expect(storable(net('2001:db8::', '2001:db8::ff', 'TINY6'))).toBe(false);
  });
});

describe('registrations in the database', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = connect(database.url);
    await migrate(db.db);
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  it('answers the most specific stored network by containment, and a fresh server finds it', async () => {
    const caches = new LookupCaches(db.db);
    for (const network of [ALLOCATION, CUSTOMER, CUSTOMER6, net('192.0.2.9', '192.0.2.9', 'ONE')]) {
      await caches.saveNetwork(network);
    }
    const fresh = new LookupCaches(db.db);
    expect(fresh.network('192.0.2.20')).toBeUndefined();
    expect((await fresh.storedNetwork('192.0.2.20'))?.handle).toBe('ACME-NET');
    expect(fresh.network('192.0.2.21')?.handle).toBe('ACME-NET'); // now in its memory
    expect((await fresh.storedNetwork('192.0.2.9'))?.handle).toBe('ACME-NET');
    expect((await fresh.storedNetwork('2001:db8:ac3e::1'))?.signal).toEqual(judged('ACME-NET6'));
    expect(await fresh.storedNetwork('198.51.100.7')).toBeNull();
    // The one-address registration stayed in the memory of the server that asked.
    expect(caches.network('192.0.2.9')?.handle).toBe('ONE');
    const { rows } = await sql<{ start: string }>`
      SELECT host(start_address) AS start FROM rdap_networks ORDER BY 1`.execute(db.db);
    expect(rows.map((row) => row.start)).toEqual(['192.0.2.0', '192.0.2.0', '2001:db8:ac3e::']);
  });

  it('ignores and prunes registrations older than 30 days', async () => {
    const caches = new LookupCaches(db.db);
    await caches.saveAutnum({
      asn: 64501,
      name: 'ACME GmbH',
      domain: 'acme-gmbh.de',
      signal: judged('AS64501 ACME-AS', 'organisation'),
    });
    await sql`UPDATE rdap_networks SET fetched_at = now() - interval '31 days'
              WHERE handle = 'ACME-NET'`.execute(db.db);
    await sql`UPDATE rdap_autnums SET fetched_at = now() - interval '31 days'`.execute(db.db);
    const fresh = new LookupCaches(db.db);
    expect((await fresh.storedNetwork('192.0.2.20'))?.handle).toBe('EXAMPLE-ISP');
    expect(await fresh.storedAutnum(64501)).toBeNull();
    expect(await pruneLookupCaches(db.db)).toBe(2);
    expect(await fresh.storedAutnum(64501)).toBeNull();
  });

  it('queues a bounded number of addresses and visitors, and asks once per address', async () => {
    const dns = await startDnsServer();
    const config = loadConfig({ DNS_SERVERS: dns.server, RDAP_URL: 'http://127.0.0.1:9/' });
    const caches = new LookupCaches(db.db);
    const judgements = networkJudgements({
      paths: defaultAsnDatabases(),
      geo: await GeoLocator.open(defaultCityDatabases()),
      overrides: new NetworkOverrides('/nonexistent/network-kinds.csv'),
    });
    const registry = new Registry();
    const queue = new LookupQueue(
      {
        caches,
        sources: onlineSources(config, caches, judgements),
        resolve: async () => null,
        attribute: async () => 0,
        registry,
        log: () => {},
      },
      { ...DEFAULT_LIMITS, addresses: 2, visitorsPerAddress: 2 },
    );
    const visitor = (n: number) => ({ workspaceId: 'w', visitorId: `v${n}` });
    for (let n = 0; n < 3; n++) queue.want('198.51.100.1', ['reverse_dns'], visitor(n));
    queue.want('198.51.100.2', ['reverse_dns'], visitor(0));
    queue.want('198.51.100.3', ['reverse_dns'], visitor(0));
    const metric = async (name: string) =>
      (await registry.getSingleMetricAsString(name)).split('\n');
    expect(await metric('footfall_lookups_dropped_total')).toEqual(
      expect.arrayContaining([
        'footfall_lookups_dropped_total{reason="visitors_full"} 1',
        'footfall_lookups_dropped_total{reason="queue_full"} 1',
      ]),
    );
    expect(await metric('footfall_lookup_queue_addresses')).toContain(
      'footfall_lookup_queue_addresses 2',
    );
    // Nothing is asked before the server's job starts the queue; then each address once.
    expect(dns.questions).toEqual([]);
    const running = queue.start();
    await until(() => dns.questions.length === 2);
    await running.stop();
    expect(dns.questions.sort()).toEqual([
      'PTR 1.100.51.198.in-addr.arpa',
      'PTR 2.100.51.198.in-addr.arpa',
    ]);
    await dns.close();
  });

  it('remembers a failed lookup for an hour, in memory only', () => {
    const caches = new LookupCaches(db.db);
    expect(caches.network('198.51.100.7')).toBeUndefined();
    caches.networkFailed('198.51.100.7');
    caches.autnumFailed(64502);
    expect(caches.network('198.51.100.7')).toBeNull();
    expect(caches.autnum(64502)).toBeNull();
    expect(new LookupCaches(db.db).network('198.51.100.7')).toBeUndefined();
  });
});

describe('politeness per RDAP server', () => {
  it('asks one server two questions at a time at most, and others meanwhile', async () => {
    const gate = new HostGate(2);
    const running = new Map<string, number>();
    const most = new Map<string, number>();
    const question = (host: string) =>
      gate.run(host, async () => {
        running.set(host, (running.get(host) ?? 0) + 1);
        most.set(host, Math.max(most.get(host) ?? 0, running.get(host) ?? 0));
        await sleep(20);
        running.set(host, (running.get(host) ?? 1) - 1);
      });
    await Promise.all([
      ...Array.from({ length: 7 }, () => question('rdap.db.ripe.net')),
      ...Array.from({ length: 3 }, () => question('rdap.arin.net')),
    ]);
    expect(Object.fromEntries(most)).toEqual({ 'rdap.db.ripe.net': 2, 'rdap.arin.net': 2 });
  });

  it('leaves a server that answered 429 alone for the time it asked', async () => {
    const gate = new HostGate(2);
    gate.pause('rdap.db.ripe.net', 60);
    let asked = 0;
    const ask = () => gate.run('rdap.db.ripe.net', async () => asked++);
    await expect(ask()).rejects.toBeInstanceOf(RateLimited);
    await gate.run('rdap.arin.net', async () => asked++);
    expect(asked).toBe(1);
    await sleep(80);
    await ask();
    expect(asked).toBe(2);
  });
});
