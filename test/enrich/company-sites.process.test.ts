import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, client, startSecondApp, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, visit } from '../helpers/collect.js';
import { addCompanies } from '../helpers/companies.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { fixture, type Homepages, html, redirect, startHomepages } from '../helpers/homepages.js';
import { killStragglers, runFootfall } from '../helpers/process.js';

// Company homepages on 127.0.0.62 port 80, named by the test's DNS server; the app reaches
// them through DNS_SERVERS and ALLOW_PRIVATE_WEBHOOKS=true, nothing else special.
const SITES = '127.0.0.62';
const SITE = 'https://shop.example';
const DOMAINS = [
  'acme-pumpen.de',
  'www.acme-pumpen.de',
  'globex-corp.co.uk',
  'initech.example',
  'down.example',
  'directory-co.example',
  'quiet-gmbh.de',
];

let dns: TestDnsServer;
let sites: Homepages;
let t: TestApp;
// A second server over the same database: the two split the reading, never doubling it.
let second: { close(): Promise<void> };
let api: ReturnType<typeof client>;
let ws: string;
const ids: Record<string, string> = {};

/** A workspace of `app` whose visitors identify with an address at each domain. */
async function visitedBy(app: TestApp, domains: string[]) {
  const call = client(app.url, (await app.operator()).token);
  const workspace = (await call('POST', '/v1/workspaces', { url: SITE })).body.data;
  const send = collector(app.url);
  for (const domain of domains) {
    const answer = await send(
      visit(workspace.tracking_script_id, [identify(`${SITE}/demo`, `jane@${domain}`, Date.now())]),
    );
    expect(answer.status).toBe(202);
  }
  const list = await call('GET', `/v1/workspaces/${workspace.uuid}/organisations?size=100`);
  return {
    call,
    ws: workspace.uuid as string,
    organisations: list.body.data as { uuid: string }[],
  };
}

const organisation = (domain: string): Promise<Answer> =>
  api('GET', `/v1/workspaces/${ws}/organisations/${ids[domain]}`);

/** Waits until the background job has read the domain's homepage (or given up on it). */
async function readSite(domain: string, host = domain) {
  await expect.poll(() => sites.count(host), { timeout: 30_000 }).toBeGreaterThan(0);
  // The answer is stored a moment after the request.
  await sleep(300);
}

beforeAll(async () => {
  dns = await startDnsServer({
    addresses: Object.fromEntries(DOMAINS.map((domain) => [domain, [SITES]])),
  });
  sites = await startHomepages(SITES, {
    'acme-pumpen.de': redirect('http://www.acme-pumpen.de/'),
    'www.acme-pumpen.de': html(await fixture('yoast-graph.html')),
    'globex-corp.co.uk': html(await fixture('organization.html')),
    'initech.example': html(await fixture('title-only.html')),
    'down.example': (_request, response) => response.writeHead(503).end('Down for maintenance'),
    'directory-co.example': html('<title>Directory Co</title>'),
    'quiet-gmbh.de': html('<title>Quiet GmbH</title>'),
  });
  t = await startTestApp({
    ONLINE_LOOKUPS: 'on',
    DNS_SERVERS: dns.server,
    ALLOW_PRIVATE_WEBHOOKS: 'true',
  });
  second = await startSecondApp(t);
  await addCompanies(t.database.db, [
    { domain: 'directory-co.example', name: 'Directory Company', industry: 'Consulting' },
  ]);
  const made = await visitedBy(t, [
    'acme-pumpen.de',
    'globex-corp.co.uk',
    'initech.example',
    'down.example',
    'directory-co.example',
  ]);
  api = made.call;
  ws = made.ws;
  for (const { uuid } of made.organisations) {
    const o = (await api('GET', `/v1/workspaces/${ws}/organisations/${uuid}`)).body.data;
    ids[o.identification.evidence.domain] = uuid;
  }
});
afterAll(async () => {
  killStragglers();
  await second?.close();
  await t?.close();
  await sites?.close();
  await dns?.close();
});

describe('profiles from companies’ own homepages', () => {
  it('reads the homepage of every organisation without a directory entry, in the background', async () => {
    await readSite('acme-pumpen.de', 'www.acme-pumpen.de');
    const acme = (await organisation('acme-pumpen.de')).body.data;
    expect(acme).toMatchObject({
      name: 'Acme Pumpen GmbH',
      website: 'https://acme-pumpen.de',
      logo: 'https://www.acme-pumpen.de/wp-content/uploads/2023/01/acme-logo.svg',
      description: 'Kreiselpumpen und Dosiertechnik aus München & seit 1947.',
      industry: '',
      profile_source: {
        directory: false,
        website: 'http://www.acme-pumpen.de/',
        fetched_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      },
    });
    expect(acme.profiles.map((p: { name: string }) => p.name)).toEqual([
      'linkedin',
      'twitter',
      'youtube',
      'xing',
      'instagram',
    ]);
    expect(Date.now() - Date.parse(acme.profile_source.fetched_at)).toBeLessThan(60_000);
    // Two servers, one read: the apex once over http (https found nobody), www. once.
    expect(sites.count('acme-pumpen.de')).toBe(1);
    expect(sites.count('www.acme-pumpen.de')).toBe(1);

    await readSite('initech.example');
    expect((await organisation('initech.example')).body.data).toMatchObject({
      name: 'Initech',
      logo: '',
      description: '',
    });
    // The list shows the same profile.
    const list = await api('GET', `/v1/workspaces/${ws}/organisations?name=Acme`);
    expect(list.body.data).toEqual([
      expect.objectContaining({ name: 'Acme Pumpen GmbH', logo: acme.logo }),
    ]);
  });

  it('keeps a site that failed at its domain’s name, and does not ask it again within the day', async () => {
    await readSite('down.example');
    const down = (await organisation('down.example')).body.data;
    expect(down).toMatchObject({
      name: 'down.example',
      logo: '',
      description: '',
      profile_source: { directory: false, website: null, fetched_at: null },
    });
    // Rounds run every 3 s: several pass, and neither it nor a good site is read again.
    const asked = sites.requests.length;
    await sleep(7_000);
    expect(sites.requests.length).toBe(asked);
  });

  it('never asks the site of an organisation the directory knows', async () => {
    await readSite('globex-corp.co.uk');
    expect(sites.count('directory-co.example')).toBe(0);
    expect((await organisation('directory-co.example')).body.data).toMatchObject({
      name: 'Directory Company',
      industry: 'Consulting',
      description: '',
      profile_source: { directory: true, website: null, fetched_at: null },
    });
  });

  it('lets the imported directory win field by field over the site', async () => {
    await readSite('globex-corp.co.uk');
    const before = (await organisation('globex-corp.co.uk')).body.data;
    expect(before).toMatchObject({ name: 'Globex', size: '51-200', founded: '2009' });
    // The directory learns of Globex later, with some of its fields.
    await addCompanies(t.database.db, [
      {
        domain: 'globex-corp.co.uk',
        name: 'Globex Corporation',
        size: '201-500',
        industry: 'Software',
        address: { city: 'Reading', country: 'GB' },
        profiles: [
          {
            name: 'linkedin',
            handle: 'globex-uk',
            url: 'https://www.linkedin.com/company/globex-uk',
          },
        ],
      },
    ]);
    const after = (await organisation('globex-corp.co.uk')).body.data;
    expect(after).toMatchObject({
      // The directory's fields…
      name: 'Globex Corporation',
      size: '201-500',
      industry: 'Software',
      // …its address as a whole (two addresses' parts would make no place)…
      address: {
        city: 'Reading',
        country: 'GB',
        street: '',
        postal_code: '',
        full_address: '',
      },
      // …and the site's where the directory has none.
      logo: 'http://globex-corp.co.uk/static/img/globex-logo.png',
      description:
        'Globex builds route planning and dispatch software for mid-sized shippers across Europe.',
      phone: '+44 20 7946 0321',
      email: 'hello@globex-corp.co.uk',
      founded: '2009',
      profile_source: { directory: true, website: 'http://globex-corp.co.uk/' },
    });
    // The directory's LinkedIn, and the site's profiles on the other networks.
    expect(after.profiles).toEqual([
      { name: 'linkedin', handle: 'globex-uk', url: 'https://www.linkedin.com/company/globex-uk' },
      { name: 'github', handle: 'globex', url: 'https://github.com/globex' },
      { name: 'twitter', handle: 'GlobexCorp', url: 'https://twitter.com/GlobexCorp' },
      { name: 'facebook', handle: 'GlobexCorp', url: 'https://www.facebook.com/GlobexCorp' },
    ]);
    // Search, segments and the CSV export see the same profile.
    const found = await api('GET', `/v1/workspaces/${ws}/organisations?name=Globex%20Corp`);
    expect(found.body.total).toBe(1);
    const bySize = await api('POST', `/v1/workspaces/${ws}/organisations`, {
      filters: {
        operator: 'AND',
        conditions: [{ field: 'size', comparison: 'equal', value: '51-200' }],
      },
    });
    expect(bySize.body.data.map((o: { name: string }) => o.name)).toEqual([]);
    const bySiteSize = await api('POST', `/v1/workspaces/${ws}/organisations`, {
      filters: {
        operator: 'AND',
        conditions: [{ field: 'size', comparison: 'equal', value: '201-500' }],
      },
    });
    expect(bySiteSize.body.data.map((o: { name: string }) => o.name)).toEqual([
      'Globex Corporation',
    ]);
  });

  it('shows the merged profile in the CSV export too', async () => {
    const response = await api('GET', `/v1/workspaces/${ws}/organisations.csv`);
    expect(response.status).toBe(200);
    expect(response.body).toContain('Acme Pumpen GmbH,acme-pumpen.de');
    expect(response.body).toContain('Globex Corporation,globex-corp.co.uk');
  });
});

describe('footfall enrich', () => {
  const env = () => ({
    DATABASE_URL: t.deps.config.databaseUrl as string,
    TOKEN_SECRET: t.deps.config.tokenSecret as string,
    DATA_DIR: t.deps.config.dataDir,
    ONLINE_LOOKUPS: 'on',
    DNS_SERVERS: dns.server,
    ALLOW_PRIVATE_WEBHOOKS: 'true',
  });
  const lines = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));

  it('--domain reads it now, due or not, and prints what it found as JSON', async () => {
    const asked = sites.count('initech.example');
    const run = await runFootfall(['enrich', '--domain', 'www.Initech.example'], env());
    expect(run.code, run.stderr).toBe(0);
    expect(lines(run.stdout)).toEqual([
      {
        domain: 'initech.example',
        status: 'ok',
        url: 'http://initech.example/',
        name: 'Initech',
        logo: '',
        description: '',
        phone: '',
        email: '',
        founded: '',
        size: '',
        address: {},
        profiles: [],
      },
    ]);
    expect(sites.count('initech.example')).toBe(asked + 1);
  });

  it('prints a site that fails as data, and exits 0', async () => {
    const run = await runFootfall(['enrich', '--domain', 'down.example'], env());
    expect(run.code, run.stderr).toBe(0);
    expect(lines(run.stdout)).toEqual([
      {
        domain: 'down.example',
        status: 'failed',
        error: 'https: connection refused; http: HTTP 503',
      },
    ]);
  });

  it('--workspace reads its organisations without a directory entry', async () => {
    const run = await runFootfall(['enrich', '--workspace', ws], env());
    expect(run.code, run.stderr).toBe(0);
    const found = lines(run.stdout);
    expect(found.map((read: { domain: string }) => read.domain).sort()).toEqual([
      'acme-pumpen.de',
      'down.example',
      'initech.example',
    ]);
    expect(run.stderr).toContain('2 of its organisations have a company-directory entry');
  });

  it('refuses bad arguments with a clear message', async () => {
    const unknown = await runFootfall(['enrich', '--workspace', randomUUID()], env());
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/No workspace [0-9a-f-]{36}\./);
    const notDomain = await runFootfall(['enrich', '--domain', 'not a domain'], env());
    expect(notDomain.code).not.toBe(0);
    expect(notDomain.stderr).toContain('not a domain is not a domain name.');
  });
});

describe('ONLINE_LOOKUPS=off', () => {
  it('asks no site and no DNS server anything, in the background or from the command', async () => {
    const off = await startTestApp({
      ONLINE_LOOKUPS: 'off',
      DNS_SERVERS: dns.server,
      ALLOW_PRIVATE_WEBHOOKS: 'true',
    });
    try {
      await visitedBy(off, ['quiet-gmbh.de']);
      const run = await runFootfall(['enrich', '--domain', 'quiet-gmbh.de'], {
        DATABASE_URL: off.deps.config.databaseUrl as string,
        TOKEN_SECRET: off.deps.config.tokenSecret as string,
        DATA_DIR: off.deps.config.dataDir,
        ONLINE_LOOKUPS: 'off',
        DNS_SERVERS: dns.server,
      });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('ONLINE_LOOKUPS is off');
      // Two rounds of the job would have come and gone.
      await sleep(7_000);
      expect(sites.count('quiet-gmbh.de')).toBe(0);
      expect(dns.questions.filter((q) => q.includes('quiet-gmbh.de'))).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
