import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { IpRanges, upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { createTestDatabase } from '../helpers/app.js';

// The operator's ranges are matched in memory on the collector's answer path; PostgreSQL's
// own longest-prefix match (`>>=`, longest mask first) is the reference they must agree with.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let one: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  one = connect(database.url);
  await migrate(one.db);
});
afterAll(async () => {
  await one?.close();
  await database?.drop();
});

/** A seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

async function reference(ip: string): Promise<string | null> {
  const { rows } = await sql<{ domain: string }>`
    SELECT domain FROM ip_ranges WHERE network >>= ${ip}::inet
    ORDER BY masklen(network) DESC LIMIT 1`.execute(one.db);
  return rows[0]?.domain ?? null;
}

describe('the operator IP ranges, matched in memory', () => {
  it('name every address as PostgreSQL does, nested ranges and IPv6 included', async () => {
    const next = random(7);
    const rows = [];
    // Nested IPv4 ranges within 10.0.0.0/8 and 172.16.0.0/12, of every length from 8 to 32.
    for (let i = 0; i < 400; i++) {
      const length = 8 + next(25);
      const first = next(2) === 0 ? 10 : 172;
      const bytes = [first, (first === 172 ? 16 : 0) + next(16), next(4), next(256)];
      const value = bytes.reduce((sum, byte) => sum * 256 + byte, 0);
      const network = Math.floor(value / 2 ** (32 - length)) * 2 ** (32 - length);
      const address = [24, 16, 8, 0].map((shift) => Math.floor(network / 2 ** shift) % 256);
      rows.push({ network: `${address.join('.')}/${length}`, domain: `v4-${i}.example`, name: '' });
    }
    for (let i = 0; i < 100; i++) {
      const length = 32 + next(4) * 16;
      const groups = [
        '2001',
        'db8',
        next(4).toString(16),
        next(2).toString(16),
        '0',
        '0',
        '0',
        '0',
      ];
      const kept = groups.slice(0, length / 16);
      const network = `${[...kept, ...Array(8 - kept.length).fill('0')].join(':')}/${length}`;
      rows.push({ network, domain: `v6-${i}.example`, name: '' });
    }
    // One row per network (the last word), as an import keeps it.
    await upsertIpRanges(one.db, [...new Map(rows.map((row) => [row.network, row])).values()]);
    const ranges = new IpRanges(one.db);

    const addresses: string[] = [];
    for (let i = 0; i < 1_500; i++) {
      addresses.push(
        `${next(2) === 0 ? 10 : 172}.${next(2) === 0 ? next(4) : 16 + next(16)}.${next(4)}.${next(256)}`,
      );
    }
    for (let i = 0; i < 300; i++) {
      addresses.push(
        `2001:db8:${next(4).toString(16)}:${next(2).toString(16)}::${next(65536).toString(16)}`,
      );
    }
    addresses.push('::ffff:10.0.0.1', '192.0.2.1', '2001:db9::1');
    let named = 0;
    for (const ip of addresses) {
      // An IPv4 client on a dual-stack socket (::ffff:a.b.c.d) is its IPv4 address, as for
      // the other resolvers; PostgreSQL's inet would not match it to an IPv4 range.
      const expected = await reference(ip.replace(/^::ffff:/, ''));
      const found = await ranges.lookup(ip);
      expect(found?.domain ?? null, ip).toBe(expected);
      if (found) {
        named++;
        expect(found.identification?.method).toBe('ip_range');
      }
    }
    // Both answers occur: the comparison means something.
    expect(named).toBeGreaterThan(200);
    expect(named).toBeLessThan(addresses.length);
  });

  it('takes an import within a few seconds, without a restart', async () => {
    const ranges = new IpRanges(one.db);
    expect(await ranges.lookup('198.51.100.7')).toBeNull();
    await upsertIpRanges(one.db, [
      { network: '198.51.100.0/24', domain: 'late-import.example', name: 'Late' },
    ]);
    const deadline = Date.now() + IpRanges.CHECK_MS + 5_000;
    let found = await ranges.lookup('198.51.100.7');
    while (!found && Date.now() < deadline) {
      await sleep(200);
      found = await ranges.lookup('198.51.100.7');
    }
    expect(found).toMatchObject({ domain: 'late-import.example', name: 'Late' });
  });
});
