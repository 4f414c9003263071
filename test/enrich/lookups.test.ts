import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startSecondApp, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, pageview, processed, visit } from '../helpers/collect.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { databaseText } from '../helpers/dump.js';
import { autnums, entity, ripe } from '../helpers/rdap-fixtures.js';
import { startRdapServer, type TestRdapServer } from '../helpers/rdap-server.js';
import { until } from '../helpers/wait.js';

// Visitors "come from" these addresses through X-Forwarded-For (TRUST_PROXY trusts loopback).
const ACME_FIREWALL = '192.0.2.10'; // in ACME GmbH's assignment (192.0.2.0/27), PTR fw1.acme-gmbh.de
const ACME_DESK = '192.0.2.11'; // the same assignment, no PTR
const ACME_LAPTOP = '192.0.2.12'; // the same assignment, asked of a second server
const DIAL_UP = '192.0.2.70'; // the ISP's dynamic pool, PTR with the address written in
const KLEEMANN = '185.119.8.10'; // AS12546, a company network the bundled data calls a business
const FABASOFT = '212.183.5.10'; // AS15910, a company network; its registry has no record here
const SLOW = Array.from({ length: 12 }, (_, i) => `192.0.2.${200 + i}`);
const REFUSED = ['198.51.100.7', '203.0.113.8']; // asked while the registry answers 429
const VISITORS = [
  ACME_FIREWALL,
  ACME_DESK,
  ACME_LAPTOP,
  DIAL_UP,
  KLEEMANN,
  FABASOFT,
  ...SLOW,
  ...REFUSED,
];

// Kleemann's AS as RIPE publishes such records: the registrant organisation without an
// address of its own, the network team at the company's domain, abuse last.
const kleemannAutnum = {
  objectClassName: 'autnum',
  handle: 'AS31007',
  name: 'KLEEMANN-AS',
  startAutnum: 31007,
  endAutnum: 31007,
  country: 'DE',
  entities: [
    entity({ handle: 'KLEEMANN-MNT', roles: ['registrant'] }),
    entity({
      handle: 'ORG-ASAC1-RIPE',
      roles: ['registrant'],
      kind: 'org',
      fn: 'KLEEMANN GmbH Maschinenbau',
    }),
    entity({
      handle: 'SNO1-RIPE',
      roles: ['technical'],
      kind: 'group',
      fn: 'KLEEMANN IT Operations',
      email: 'network@kleemann.de',
    }),
    entity({ handle: 'SAB1-RIPE', roles: ['abuse'], kind: 'group', email: 'abuse@kleemann.de' }),
  ],
};

const H = 3_600_000;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

let dns: TestDnsServer;
let rdap: TestRdapServer;
let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
let script: string;
const answers: unknown[] = [];

beforeAll(async () => {
  dns = await startDnsServer({
    ptr: {
      [ACME_FIREWALL]: ['fw1.acme-gmbh.de.'],
      [DIAL_UP]: ['dip-192-0-2-70.dyn.example-isp.de.'],
    },
    addresses: {
      'fw1.acme-gmbh.de': [ACME_FIREWALL],
      'dip-192-0-2-70.dyn.example-isp.de': [DIAL_UP],
    },
  });
  rdap = await startRdapServer({
    networks: [ripe.allocation, ripe.acme, ripe.dial],
    autnums: { 12546: kleemannAutnum, 64500: autnums.isp },
  });
  t = await startTestApp(settings('on'));
  api = client(t.url, (await t.operator()).token);
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://shop.example' })).body
    .data;
  ws = workspace.uuid;
  script = workspace.tracking_script_id;
});
afterAll(async () => {
  await t?.close();
  await dns?.close();
  await rdap?.close();
});

function settings(lookups: 'on' | 'off'): Record<string, string> {
  return {
    ONLINE_LOOKUPS: lookups,
    DNS_SERVERS: dns.server,
    RDAP_URL: rdap.url,
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    TRUST_PROXY: '127.0.0.1',
  };
}

/** Sends a page view of `visitor` from `ip` (at `at`), and how long the answer took. */
async function send(base: string, ip: string, visitor = randomUUID(), at = Date.now()) {
  const started = performance.now();
  const answer = await collector(base, { wait: false })(
    visit(script, [pageview('https://shop.example/', at)], { visitor }),
    from(ip),
  );
  // The answer's time; the visit is then processed before the test reads it.
  const ms = performance.now() - started;
  expect(answer.status).toBe(202);
  await processed(base);
  return { visitor, ms };
}

const sessionsOf = (visitor: string) =>
  t.database.db
    .selectFrom('sessions')
    .select('organisation_id')
    .where('workspace_id', '=', ws)
    .where('visitor_id', '=', visitor)
    .orderBy('started_at')
    .execute();

interface Organisation {
  uuid: string;
  name: string;
  website: string;
  identification: { method: string; evidence: Record<string, unknown> };
}

async function organisations(): Promise<Organisation[]> {
  const answer = await api('GET', `/v1/workspaces/${ws}/organisations?size=100`);
  answers.push(answer.body);
  return answer.body.data;
}

const organisationOf = async (domain: string) =>
  (
    await t.database.db
      .selectFrom('organisations')
      .select('id')
      .where('workspace_id', '=', ws)
      .where('domain', '=', domain)
      .executeTakeFirst()
  )?.id;

// The questions the lookups ask: PTR, and A/AAAA of the PTR names to confirm them. The
// homepage reader of a named company asks for its domain too, whenever its job runs.
const lookupQuestions = () => {
  const ptrNames = new Set(
    Object.values(dns.zone.ptr)
      .flat()
      .map((name) => name.replace(/\.$/, '')),
  );
  return dns.questions.filter(
    (question) => question.startsWith('PTR ') || ptrNames.has(question.split(' ')[1] ?? ''),
  );
};
const asked = () => ({ dns: lookupQuestions().length, rdap: rdap.requests.length });

describe('online lookups in the background', () => {
  it('names the company a business PTR and its registration name, earlier sessions included', async () => {
    // Answers take a while, so both visits are stored before the lookup ends.
    dns.delayMs = 300;
    const visitor = randomUUID();
    await send(t.url, ACME_FIREWALL, visitor, Date.now() - 5 * H);
    await send(t.url, ACME_FIREWALL, visitor);
    expect((await sessionsOf(visitor)).map((s) => s.organisation_id)).toEqual([null, null]);

    await until(async () => (await sessionsOf(visitor)).every((s) => s.organisation_id !== null));
    const acme = await organisationOf('acme-gmbh.de');
    expect((await sessionsOf(visitor)).map((s) => s.organisation_id)).toEqual([acme, acme]);
    const found = (await organisations()).find((o) => o.uuid === acme);
    expect(found).toMatchObject({ name: 'ACME GmbH', identification: { method: 'registration' } });
    expect(found?.identification.evidence.signals).toEqual(
      expect.arrayContaining([
        { signal: 'reverse_dns', value: 'fw1.acme-gmbh.de', verdict: 'organisation' },
        expect.objectContaining({ signal: 'registration', verdict: 'organisation' }),
      ]),
    );
    // One PTR with its forward check; the network's record and its parent's.
    expect(lookupQuestions()).toEqual([
      'PTR 10.2.0.192.in-addr.arpa',
      'A fw1.acme-gmbh.de',
      'AAAA fw1.acme-gmbh.de',
    ]);
    expect(rdap.requests).toEqual(['/ip/192.0.2.10', '/ip/192.0.2.0/26']);
    dns.delayMs = 0;
  });

  it('answers the next visit from that address from memory: named at once, nothing asked', async () => {
    const before = asked();
    const { visitor } = await send(t.url, ACME_FIREWALL);
    expect((await sessionsOf(visitor))[0]?.organisation_id).toBe(
      await organisationOf('acme-gmbh.de'),
    );
    expect(asked()).toEqual(before);
  });

  it('asks no registry again for another address of a network it knows', async () => {
    const before = asked();
    const { visitor } = await send(t.url, ACME_DESK);
    await until(async () => (await sessionsOf(visitor))[0]?.organisation_id != null);
    expect((await sessionsOf(visitor))[0]?.organisation_id).toBe(
      await organisationOf('acme-gmbh.de'),
    );
    expect(rdap.requests.length).toBe(before.rdap);
    expect(lookupQuestions().slice(before.dns)).toEqual(['PTR 11.2.0.192.in-addr.arpa']);
  });

  it('keeps registrations in the database: another server asks no registry for that network', async () => {
    const second = await startSecondApp(t);
    try {
      const before = asked();
      const { visitor } = await send(second.url, ACME_LAPTOP);
      await until(async () => (await sessionsOf(visitor))[0]?.organisation_id != null);
      expect((await sessionsOf(visitor))[0]?.organisation_id).toBe(
        await organisationOf('acme-gmbh.de'),
      );
      expect(rdap.requests.length).toBe(before.rdap);
    } finally {
      await second.close();
    }
  });

  it('names nobody for a provider’s dynamic pool, and remembers that too', async () => {
    const { visitor } = await send(t.url, DIAL_UP);
    await until(
      () =>
        rdap.requests.includes('/ip/192.0.2.70') &&
        dns.questions.includes('A dip-192-0-2-70.dyn.example-isp.de'),
    );
    const before = asked();
    const next = await send(t.url, DIAL_UP);
    await sleep(500);
    expect(asked()).toEqual(before);
    for (const v of [visitor, next.visitor]) {
      expect((await sessionsOf(v)).map((s) => s.organisation_id)).toEqual([null]);
    }
    expect((await organisations()).map((o) => o.name)).not.toContain('Example ISP GmbH');
    expect(await organisationOf('example-isp.de')).toBeUndefined();
  });

  it('gives a business network its domain and common name from its AS’s registration', async () => {
    const before = asked();
    const { visitor } = await send(t.url, KLEEMANN);
    await until(async () => (await sessionsOf(visitor))[0]?.organisation_id != null);
    const kleemann = await organisationOf('kleemann.de');
    expect((await sessionsOf(visitor))[0]?.organisation_id).toBe(kleemann);
    const found = (await organisations()).find((o) => o.uuid === kleemann);
    expect(found).toMatchObject({
      name: 'KLEEMANN GmbH Maschinenbau',
      identification: {
        method: 'network_owner',
        evidence: {
          asn: 12546,
          kind: 'business',
          signals: [
            {
              signal: 'network_owner',
              value: 'AS12546 Kleemann GmbH',
              verdict: 'organisation',
            },
            expect.objectContaining({ signal: 'registration', verdict: 'organisation' }),
          ],
        },
      },
    });
    // The AS's record only: a network its owner names needs no PTR or network record.
    expect(rdap.requests.slice(before.rdap)).toEqual(['/autnum/12546']);
    expect(lookupQuestions().length).toBe(before.dns);

    // Someone from Kleemann who gives a work address meets the same organisation.
    const colleague = randomUUID();
    const answer = await collector(t.url)(
      visit(script, [identify('https://shop.example/', 'jane@kleemann.de', Date.now())], {
        visitor: colleague,
      }),
      from('8.8.4.4'),
    );
    expect(answer.status).toBe(202);
    expect((await sessionsOf(colleague))[0]?.organisation_id).toBe(kleemann);
  });

  it('keys a business network by its AS as before when its registration gives no domain', async () => {
    const { visitor } = await send(t.url, FABASOFT);
    await until(async () => (await sessionsOf(visitor))[0]?.organisation_id != null);
    expect((await sessionsOf(visitor))[0]?.organisation_id).toBe(await organisationOf('as15910'));
    expect(rdap.requests).toContain('/autnum/15910');
  });

  it('never slows the collector: every answer is quick while DNS and RDAP hang', async () => {
    dns.delayMs = Number.POSITIVE_INFINITY;
    rdap.delayMs = 10_000;
    await send(t.url, ACME_FIREWALL); // warm: answered from memory
    const times: number[] = [];
    for (const ip of SLOW) times.push((await send(t.url, ip)).ms);
    expect(Math.max(...times)).toBeLessThan(300);
    // The lookups gave up at their deadlines: DNS after 2 s, RDAP after 5 s.
    await until(async () => {
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      return (
        /footfall_lookups_total\{signal="reverse_dns",outcome="timeout"\} [1-9]/.test(metrics) &&
        /footfall_lookups_total\{signal="registration",outcome="timeout"\} [1-9]/.test(metrics)
      );
    }, 30_000);
    dns.delayMs = 0;
    rdap.delayMs = 0;
    await until(async () =>
      (await (await fetch(`${t.url}/metrics`)).text()).includes(
        'footfall_lookup_queue_addresses 0',
      ),
    );
  });

  it('leaves a registry alone for as long as its 429 asks', async () => {
    rdap.retryAfter = '120';
    const before = asked();
    const metric = async (outcome: string) =>
      new RegExp(
        `footfall_lookups_total\\{signal="registration",outcome="${outcome}"\\} ([0-9]+)`,
      ).exec(await (await fetch(`${t.url}/metrics`)).text())?.[1];
    await send(t.url, REFUSED[0] as string);
    await until(async () => (await metric('rate_limited')) !== undefined, 10_000).catch(
      async (e) => {
        console.log(
          rdap.requests.slice(before.rdap),
          lookupQuestions().slice(before.dns),
          (await (await fetch(`${t.url}/metrics`)).text())
            .split('\n')
            .filter((l) => l.includes('lookup'))
            .join('\n'),
        );
        throw e;
      },
    );
    await send(t.url, REFUSED[1] as string);
    // Its PTR is asked (another server), its registration waits for the registry's rest.
    await until(() => dns.questions.includes('PTR 8.113.0.203.in-addr.arpa'));
    await sleep(300);
    expect(rdap.requests.slice(before.rdap)).toEqual(['/ip/198.51.100.7']);
    expect(await metric('rate_limited')).toBe('2');
    rdap.retryAfter = null;
  });

  it('with ONLINE_LOOKUPS=off asks nothing at all and names as before', async () => {
    const off = await startTestApp(settings('off'));
    try {
      const offApi = client(off.url, (await off.operator()).token);
      const workspace = (await offApi('POST', '/v1/workspaces', { url: 'https://shop.example' }))
        .body.data;
      const before = asked();
      for (const ip of [ACME_FIREWALL, DIAL_UP, KLEEMANN, FABASOFT, '192.0.2.99']) {
        const answer = await collector(off.url)(
          visit(workspace.tracking_script_id, [pageview('https://shop.example/', Date.now())]),
          from(ip),
        );
        expect(answer.status).toBe(202);
      }
      await sleep(1_000);
      expect(asked()).toEqual(before);
      const names = (
        await offApi('GET', `/v1/workspaces/${workspace.uuid}/organisations?size=100`)
      ).body.data.map((o: Organisation) => o.name);
      expect(names.sort()).toEqual(['Fabasoft AG', 'Kleemann GmbH']);
    } finally {
      await off.close();
    }
  });

  it('asks nothing about private and reserved addresses unless private ones are allowed', async () => {
    const guarded = await startTestApp({ ...settings('on'), ALLOW_PRIVATE_WEBHOOKS: 'false' });
    try {
      const guardedApi = client(guarded.url, (await guarded.operator()).token);
      const workspace = (
        await guardedApi('POST', '/v1/workspaces', { url: 'https://shop.example' })
      ).body.data;
      const before = asked();
      for (const ip of [ACME_FIREWALL, '10.1.2.3', '100.64.0.9', '8.8.4.4']) {
        const answer = await collector(guarded.url)(
          visit(workspace.tracking_script_id, [pageview('https://shop.example/', Date.now())]),
          from(ip),
        );
        expect(answer.status).toBe(202);
      }
      // The public address is asked about (its PTR); the others never.
      await until(() => lookupQuestions().length > before.dns);
      await sleep(500);
      expect(lookupQuestions().slice(before.dns)).toEqual(['PTR 4.4.8.8.in-addr.arpa']);
      expect(rdap.requests.length).toBe(before.rdap);
    } finally {
      await guarded.close();
    }
  });

  it('stores no visitor address and shows none in any answer', async () => {
    const sessions = await api('GET', `/v1/workspaces/${ws}/sessions?size=100`);
    const details = await Promise.all(
      (await organisations()).map((o) =>
        api('GET', `/v1/workspaces/${ws}/organisations/${o.uuid}`),
      ),
    );
    const shown = JSON.stringify([answers, sessions.body, details.map((d) => d.body)]);
    const stored = await databaseText(t.database.db);
    for (const ip of VISITORS) {
      // The address, or written backwards as a PTR question names it.
      const reversed = ip.split('.').reverse().join('.');
      for (const form of [ip, reversed]) {
        const pattern = new RegExp(`(?<![\\d.])${form.replaceAll('.', '\\.')}(?![\\d])`);
        expect(stored).not.toMatch(pattern);
        expect(shown).not.toMatch(pattern);
      }
    }
    // What it keeps are the registered networks.
    expect(stored).toContain('ACME-NET');
  });
});
