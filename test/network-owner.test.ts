import { beforeAll, describe, expect, it } from 'vitest';
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
