import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCityDatabases, GeoLocator } from '../../src/identify/geo.js';
import { footprintOf } from '../../src/identify/network-footprint.js';
import { parseOverrides } from '../../src/identify/network-overrides.js';
import {
  defaultAsnDatabases,
  enterpriseBrand,
  isOrganisation,
  NetworkJudge,
  networkTable,
} from '../../src/identify/network-owner.js';
import type { NetworkTable } from '../../src/identify/network-table.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { killStragglers, runFootfall } from '../helpers/process.js';
import { until } from '../helpers/wait.js';

// Real networks, by an address inside them (the bundled ASN and city data).
const CHINANET = '1.48.0.10'; // AS4134, a carrier
const OVH = '2.26.132.10'; // AS16276, a hoster
const ROGUE_BROADBAND = '199.187.180.10'; // AS13377, an ISP in one town (Ashland, US)
const KLEEMANN = '185.119.8.10'; // AS12546, a company network in one place (Göppingen, DE)
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
    ['185.119.8.10', 12546, 'business', 'footprint_score'], // Kleemann GmbH, Göppingen
    ['132.186.88.10', 400242, 'business', 'enterprise_brand'], // Siemens, by its name
  ])('%s belongs to AS%i: %s, by %s', async (ip, asn, kind, rule) => {
    expect(await judgeIp(ip)).toMatchObject({ asn, kind, rule });
  });

  it('finds a one-town ISP in one place, and still no organisation: its name says ISP', async () => {
    const network = table.find('199.187.180.10');
    expect(footprintOf(table, network, geo)).toMatchObject({ places: 1, country: 'US' });
    expect(isOrganisation(await judge.judge(network), 'balanced')).toBe(false);
  });

  it('weighs a company network by its footprint, size and name', async () => {
    expect(await judgeIp('185.119.8.10')).toMatchObject({
      name: 'Kleemann GmbH',
      footprint: expect.stringMatching(/^one place: Goppingen.*, DE$/),
      ipv4_addresses: 512,
      ipv4_ranges: 1,
      ipv6_ranges: 1,
      score: 2,
      threshold: 1.5,
    });
    // Chinanet spreads over many places; it is decided by its name before any footprint.
    expect(await judgeIp('1.48.0.10')).toMatchObject({ words: { isp: 'chinanet' } });
  });

  it('names organisations by strictness: off never, strict on a name or list only', async () => {
    const kleemann = await judgeIp('185.119.8.10');
    const apple = await judgeIp('17.253.144.10');
    expect([kleemann, apple].map((j) => isOrganisation(j, 'balanced'))).toEqual([true, true]);
    expect([kleemann, apple].map((j) => isOrganisation(j, 'strict'))).toEqual([false, true]);
    expect([kleemann, apple].map((j) => isOrganisation(j, 'off'))).toEqual([false, false]);
  });

  it('names an enterprise by its common name and domain, never a provider that shares its brand', async () => {
    expect(await judgeIp('132.186.88.10')).toMatchObject({
      name: 'Siemens Corporation',
      kind: 'business',
      rule: 'enterprise_brand',
      words: { brand: 'siemens' },
      common_name: 'Siemens',
      domain: 'siemens.com',
    });
    expect(enterpriseBrand('Juniper Networks, Inc.')).toMatchObject({ domain: 'juniper.net' });
    expect(enterpriseBrand('Nestle Operational Services Worldwide SA')).toMatchObject({
      name: 'Nestlé',
      domain: 'nestle.com',
    });
    // The brand's own words may say "networks"; any other provider word decides against it.
    expect(enterpriseBrand('Siemens Mobile Communications')).toBeNull();
    expect(enterpriseBrand('Samsung Cloud Hosting')).toBeNull();
    // Whole words only: "Sapphire Broadband" is not SAP, "Dellwood" not Dell.
    expect(enterpriseBrand('Sapphire Systems Ltd')).toBeNull();
    expect(enterpriseBrand('Dellwood Farms')).toBeNull();
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
        'AS12546,isp',
        '13377, Business',
        '',
        '4134,carrier',
        'sixty,hosting',
        '64500,hosting,extra',
      ].join('\n'),
    );
    expect([...kinds]).toEqual([
      [12546, 'isp'],
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
          website: string;
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
    for (const ip of [CHINANET, OVH, ROGUE_BROADBAND, KLEEMANN, APPLE]) await from(ip);
    const found = await organisations();
    // Apple is named by its common name and domain, not the registry's "Apple Inc.".
    expect(found.map((o) => o.name)).toEqual(['Apple', 'Kleemann GmbH']);
    expect(await attributed()).toBe(2);
    // Each says how it was found, and on what evidence.
    expect(found[0]?.identification).toMatchObject({
      method: 'network_owner',
      evidence: { asn: 714, kind: 'business', rule: 'enterprise_list', strictness: 'balanced' },
    });
    expect(found[0]).toMatchObject({ website: 'https://apple.com' });
    expect(found[1]?.identification).toMatchObject({
      method: 'network_owner',
      evidence: {
        asn: 12546,
        kind: 'business',
        rule: 'footprint_score',
        footprint: expect.stringMatching(/^one place: Goppingen/),
        ipv4_addresses: 512,
        score: 2,
        threshold: 1.5,
      },
    });
  });

  it('follows an operator override each way without a restart', async () => {
    const { t, from, organisations } = await site();
    await from(KLEEMANN);
    await from(ROGUE_BROADBAND);
    expect((await organisations()).map((o) => o.name)).toEqual(['Kleemann GmbH']);
    const file = path.join(dir, 'kinds.csv');
    await writeFile(
      file,
      'asn,kind\n# partner office on a local ISP\nAS13377,business\nAS12546,isp\n',
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
    // And Kleemann's network is no organisation any more: a new visitor from it is not attributed.
    const kleemann = (await organisations()).find((o) => o.name === 'Kleemann GmbH');
    const sessionsOfKleemann = async () =>
      (
        await t.database.db
          .selectFrom('sessions')
          .select('id')
          .where('organisation_id', '=', kleemann?.uuid ?? '')
          .execute()
      ).length;
    const before = await sessionsOfKleemann();
    await from(KLEEMANN);
    expect(await sessionsOfKleemann()).toBe(before);

    const refused = path.join(dir, 'refused.csv');
    await writeFile(refused, 'AS13377,carrier\n');
    const again = await runFootfall(['import', 'network-kinds', refused], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('line 1: give two columns, an AS number and one of');
  });

  it('at strict names only what a list or a name says; off names nothing', async () => {
    const strict = await site({ NETWORK_OWNER_STRICTNESS: 'strict' });
    const off = await site({ NETWORK_OWNER_STRICTNESS: 'off' });
    for (const ip of [KLEEMANN, APPLE]) {
      await strict.from(ip);
      await off.from(ip);
    }
    expect((await strict.organisations()).map((o) => o.name)).toEqual(['Apple']);
    expect(await off.organisations()).toEqual([]);
  });
});
