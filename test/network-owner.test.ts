import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classify, defaultAsnDatabases, networkOwners } from '../src/identify/network-owner.js';
import { client, startTestApp, type TestApp } from './helpers/app.js';
import { collector, pageview, visit } from './helpers/collect.js';

describe('network-owner classification, on the bundled data', () => {
  // Known networks of each kind, by an address inside them.
  it.each([
    ['164.59.144.10', 12349, 'business'], // Bayer AG
    ['155.56.192.1', 12510, 'business'], // SAP SE
    ['5.182.186.9', 33651, 'isp'], // Comcast Cable
    ['81.2.0.5', 12332, 'isp'], // PJSC Rostelecom
    ['23.18.1.1', 21928, 'mobile'], // T-Mobile USA
    ['2.28.1.1', 24940, 'hosting'], // Hetzner Online
    ['5.42.203.4', 393406, 'hosting'], // DigitalOcean
    ['8.8.4.4', 15169, 'hosting'], // Google
    ['2001:4860:4860::8888', 15169, 'hosting'], // Google, IPv6
  ])('%s belongs to AS%i, a %s network', async (ip, asn, kind) => {
    const owners = await networkOwners(defaultAsnDatabases());
    expect(owners.lookup(ip)).toMatchObject({ asn, kind });
  });

  it('classifies by listed ASN first, then by name', () => {
    expect(classify(15169, 'Google LLC')).toBe('hosting');
    expect(classify(64500, 'Acme Widgets GmbH')).toBe('business');
    expect(classify(64501, 'Example Broadband Ltd')).toBe('isp');
    expect(classify(64502, 'Example Mobile Networks')).toBe('mobile');
    expect(classify(64503, 'Example Cloud Hosting BV')).toBe('hosting');
  });

  it('finds nothing for private and loopback addresses', async () => {
    const owners = await networkOwners(defaultAsnDatabases());
    expect(owners.lookup('127.0.0.1')).toBeNull();
    expect(owners.lookup('10.1.2.3')).toBeNull();
  });
});

describe('the network-owner resolver at ingest', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    // A small ASN_DB of our own: one company network, one ISP, one hosting network.
    dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-asn-'));
    const csv = path.join(dir, 'asn.csv');
    await writeFile(
      csv,
      [
        '198.51.100.0,198.51.100.255,64500,"Initech, Inc."',
        '203.0.113.0,203.0.113.127,64501,Example Broadband Ltd',
        '203.0.113.128,203.0.113.255,16509,"Amazon.com, Inc."',
      ].join('\n'),
    );
    t = await startTestApp({ TRUST_PROXY: '127.0.0.1', ASN_DB: csv });
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('attributes a company network to its owner, and never an ISP or hosting network', async () => {
    const api = client(t.url, (await t.operator()).token);
    const workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body
      .data;
    const send = collector(t.url);
    for (const ip of ['198.51.100.7', '203.0.113.9', '203.0.113.200']) {
      await send(
        visit(workspace.tracking_script_id, [pageview('https://site.example/', Date.now())]),
        { 'x-forwarded-for': ip },
      );
    }
    const organisations = await t.database.db
      .selectFrom('organisations')
      .select(['id', 'domain', 'name'])
      .where('workspace_id', '=', workspace.uuid)
      .execute();
    expect(organisations.map((o) => [o.domain, o.name])).toEqual([['as64500', 'Initech, Inc.']]);
    const { data } = (
      await api('GET', `/v1/workspaces/${workspace.uuid}/organisations/${organisations[0]?.id}`)
    ).body;
    expect(data).toMatchObject({ name: 'Initech, Inc.', website: '' });
    const sessions = await t.database.db
      .selectFrom('sessions')
      .select('organisation_id')
      .where('workspace_id', '=', workspace.uuid)
      .execute();
    expect(sessions.filter((s) => s.organisation_id !== null)).toHaveLength(1);
  });
});
