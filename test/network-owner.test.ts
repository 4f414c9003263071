import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCityDatabases, GeoLocator } from '../src/identify/geo.js';
import { footprintOf } from '../src/identify/network-footprint.js';
import { parseOverrides } from '../src/identify/network-overrides.js';
import {
  defaultAsnDatabases,
  isOrganisation,
  NetworkJudge,
  networkTable,
} from '../src/identify/network-owner.js';
import type { NetworkTable } from '../src/identify/network-table.js';
import { client, startTestApp, type TestApp } from './helpers/app.js';
import { collector, pageview, visit } from './helpers/collect.js';
import { killStragglers, runFootfall } from './helpers/process.js';
import { until } from './helpers/wait.js';

// Real networks, by an address inside them (the bundled ASN and city data).
const CHINANET = '1.48.0.10'; // AS4134, a carrier
const OVH = '2.26.132.10'; // AS16276, a hoster
const ROGUE_BROADBAND = '199.187.180.10'; // AS13377, an ISP in one town (Ashland, US)
const STIHL = '91.235.114.10'; // AS31007, a company network in one place (Waiblingen, DE)
const APPLE = '17.253.144.10'; // AS714, on the enterprise allow-list

describe('network judgement, on the bundled data', () => {
  let table: NetworkTable;
  let geo: GeoLocator;
  let judge: NetworkJudge;
  beforeAll(async () => {
    table = await networkTable(defaultAsnDatabases());
    geo = await GeoLocator.open(defaultCityDatabases());
    judge = new NetworkJudge(table, geo);
  });
  const judgeIp = (ip: string) => judge.judge(table.find(ip));

  // Known networks of each kind, by an address inside them, and the rule that decides.
  it.each([
    ['1.48.0.10', 4134, 'isp', 'name'], // Chinanet
    ['2.22.176.10', 55836, 'mobile', 'name'], // Reliance Jio
    ['199.187.180.10', 13377, 'isp', 'name'], // Rogue Broadband, a one-town ISP
    ['2.26.132.10', 16276, 'hosting', 'listed'], // OVH
    ['5.254.0.10', 3223, 'hosting', 'hosting_list'], // Voxility, on the vendored lists
    ['8.8.4.4', 15169, 'hosting', 'listed'], // Google
    ['2001:4860:4860::8888', 15169, 'hosting', 'listed'], // Google, IPv6
    ['17.253.144.10', 714, 'business', 'enterprise_list'], // Apple
    ['164.59.144.10', 12349, 'business', 'enterprise_list'], // Bayer AG
    ['91.235.114.10', 31007, 'business', 'footprint_score'], // Stihl AG, Waiblingen
  ])('%s belongs to AS%i: %s, by %s', async (ip, asn, kind, rule) => {
    expect(await judgeIp(ip)).toMatchObject({ asn, kind, rule });
  });

  it('finds a one-town ISP in one place, and still no organisation: its name says ISP', async () => {
    const network = table.find('199.187.180.10');
    expect(footprintOf(table, network, geo)).toMatchObject({ places: 1, country: 'US' });
    expect(isOrganisation(await judge.judge(network), 'balanced')).toBe(false);
  });

  it('weighs a company network by its footprint, size and name', async () => {
    expect(await judgeIp('91.235.114.10')).toMatchObject({
      name: 'Stihl AG representing ANDREAS STIHL AG & Co. KG',
      footprint: expect.stringMatching(/^one place: Waiblingen.*, DE$/),
      ipv4_addresses: 768,
      ipv4_ranges: 2,
      ipv6_ranges: 1,
      score: 2,
      threshold: 1.5,
    });
    // Chinanet spreads over many places; it is decided by its name before any footprint.
    expect(await judgeIp('1.48.0.10')).toMatchObject({ words: { isp: 'chinanet' } });
  });

  it('names organisations by strictness: off never, strict on a name or list only', async () => {
    const stihl = await judgeIp('91.235.114.10');
    const apple = await judgeIp('17.253.144.10');
    expect([stihl, apple].map((j) => isOrganisation(j, 'balanced'))).toEqual([true, true]);
    expect([stihl, apple].map((j) => isOrganisation(j, 'strict'))).toEqual([false, true]);
    expect([stihl, apple].map((j) => isOrganisation(j, 'off'))).toEqual([false, false]);
  });

  it('finds no network for private and loopback addresses', () => {
    expect(table.find('127.0.0.1')).toBe(-1);
    expect(table.find('10.1.2.3')).toBe(-1);
    expect(table.find('fd00::1')).toBe(-1);
  });
});

describe('operator overrides file', () => {
  it('reads asn,kind lines and says which lines it refuses', () => {
    const { kinds, refused } = parseOverrides(
      [
        'asn,kind',
        '# our own office network',
        'AS31007,isp',
        '13377, Business',
        '',
        '4134,carrier',
        'sixty,hosting',
        '64500,hosting,extra',
      ].join('\n'),
    );
    expect([...kinds]).toEqual([
      [31007, 'isp'],
      [13377, 'business'],
    ]);
    expect(refused.map((r) => r.line)).toEqual([6, 7, 8]);
  });
});

describe('the network owner at the collector', () => {
  let dir: string;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-network-kinds-'));
  });
  afterAll(async () => {
    killStragglers();
    await Promise.all(apps.map((app) => app.close()));
    await rm(dir, { recursive: true, force: true });
  });

  /** An app with a workspace, and a function that sends one visit from an address. */
  async function site(settings: Record<string, string> = {}) {
    const t = await startTestApp({ TRUST_PROXY: '127.0.0.1', ...settings });
    apps.push(t);
    const api = client(t.url, (await t.operator()).token);
    const workspace = (await api('POST', '/v1/workspaces', { url: 'https://shop.example' })).body
      .data;
    const from = async (ip: string) => {
      const answer = await collector(t.url)(
        visit(workspace.tracking_script_id, [pageview('https://shop.example/', Date.now())], {
          visitor: randomUUID(),
        }),
        { 'x-forwarded-for': ip },
      );
      expect(answer.status).toBe(202);
    };
    const organisations = async () =>
      (
        (await api('GET', `/v1/workspaces/${workspace.uuid}/organisations?size=100`)).body.data as {
          uuid: string;
          name: string;
          identification: { method: string; evidence: Record<string, unknown> };
        }[]
      ).sort((a, b) => a.name.localeCompare(b.name));
    const attributed = async () =>
      (
        await t.database.db
          .selectFrom('sessions')
          .select('organisation_id')
          .where('workspace_id', '=', workspace.uuid)
          .execute()
      ).filter((s) => s.organisation_id !== null).length;
    return { t, from, organisations, attributed };
  }

  it('names a one-place company network and a listed enterprise, never a carrier, a hoster or a one-town ISP', async () => {
    const { from, organisations, attributed } = await site();
    for (const ip of [CHINANET, OVH, ROGUE_BROADBAND, STIHL, APPLE]) await from(ip);
    const found = await organisations();
    expect(found.map((o) => o.name)).toEqual([
      'Apple Inc.',
      'Stihl AG representing ANDREAS STIHL AG & Co. KG',
    ]);
    expect(await attributed()).toBe(2);
    // Each says how it was found, and on what evidence.
    expect(found[0]?.identification).toMatchObject({
      method: 'network_owner',
      evidence: { asn: 714, kind: 'business', rule: 'enterprise_list', strictness: 'balanced' },
    });
    expect(found[1]?.identification).toMatchObject({
      method: 'network_owner',
      evidence: {
        asn: 31007,
        kind: 'business',
        rule: 'footprint_score',
        footprint: expect.stringMatching(/^one place: Waiblingen/),
        ipv4_addresses: 768,
        score: 2,
        threshold: 1.5,
      },
    });
  });

  it('follows an operator override each way without a restart', async () => {
    const { t, from, organisations } = await site();
    await from(STIHL);
    await from(ROGUE_BROADBAND);
    expect((await organisations()).map((o) => o.name)).toEqual([
      'Stihl AG representing ANDREAS STIHL AG & Co. KG',
    ]);
    const file = path.join(dir, 'kinds.csv');
    await writeFile(
      file,
      'asn,kind\n# partner office on a local ISP\nAS13377,business\nAS31007,isp\n',
    );
    const env = {
      DATABASE_URL: t.deps.config.databaseUrl ?? '',
      DATA_DIR: t.deps.config.dataDir,
    };
    const imported = await runFootfall(['import', 'network-kinds', file], env);
    expect(imported.stdout.trim()).toBe('2 network kinds taken, 0 refused');
    // The running server reads the new file within seconds: Rogue Broadband becomes one.
    await until(async () => {
      await from(ROGUE_BROADBAND);
      return (await organisations()).some((o) => o.name === 'Rogue Broadband');
    });
    const rogue = (await organisations()).find((o) => o.name === 'Rogue Broadband');
    expect(rogue?.identification).toMatchObject({
      method: 'network_owner',
      evidence: { asn: 13377, kind: 'business', rule: 'operator_override' },
    });
    // And Stihl's network is no organisation any more: a new visitor from it is not attributed.
    const stihl = (await organisations()).find((o) => o.name.startsWith('Stihl'));
    const sessionsOfStihl = async () =>
      (
        await t.database.db
          .selectFrom('sessions')
          .select('id')
          .where('organisation_id', '=', stihl?.uuid ?? '')
          .execute()
      ).length;
    const before = await sessionsOfStihl();
    await from(STIHL);
    expect(await sessionsOfStihl()).toBe(before);

    const refused = path.join(dir, 'refused.csv');
    await writeFile(refused, 'AS13377,carrier\n');
    const again = await runFootfall(['import', 'network-kinds', refused], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('line 1: give two columns, an AS number and one of');
  });

  it('at strict names only what a list or a name says; off names nothing', async () => {
    const strict = await site({ NETWORK_OWNER_STRICTNESS: 'strict' });
    const off = await site({ NETWORK_OWNER_STRICTNESS: 'off' });
    for (const ip of [STIHL, APPLE]) {
      await strict.from(ip);
      await off.from(ip);
    }
    expect((await strict.organisations()).map((o) => o.name)).toEqual(['Apple Inc.']);
    expect(await off.organisations()).toEqual([]);
  });
});
