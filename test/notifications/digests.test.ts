import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { connect } from '../../src/db/connect.js';
import { Tokens } from '../../src/http/tokens.js';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { digestOf, sendDueDigests } from '../../src/notifications/digests.js';
import { client, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { ACME, addCompanies } from '../helpers/companies.js';
import { startReceiver } from '../helpers/receiver.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';
import { startWebhookApp } from '../helpers/webhooks.js';

/**
 * Digests end to end: sessions sent through the collector with explicit times around New
 * York's midnight, digest rules in America/New_York (EST, UTC-5, in November 2026), the
 * digest job run by several servers on one database with their clocks set, and what
 * arrives at a real SMTP server and a webhook receiver.
 */

const PUBLIC_URL = 'https://footfall.example';
const SITE = 'https://site.example';
const NY = 'America/New_York';
// Saturday 21 November 2026 in New York: 06:55 and 07:05.
const SAT_0655 = new Date('2026-11-21T11:55:00Z');
const SAT_0705 = new Date('2026-11-21T12:05:00Z');
// Monday 23 November 2026, 07:05 in New York.
const MON_0705 = new Date('2026-11-23T12:05:00Z');

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let hook: Awaited<ReturnType<typeof startReceiver>>;
let api: ReturnType<typeof client>;
let ws: { uuid: string; tracking_script_id: string };
const rules: Record<string, string> = {};
const orgs: Record<string, string> = {};
const servers: { close(): Promise<void> }[] = [];

const NETWORKS = {
  acme: '81.2.69.160', // startWebhookApp: Acme (acme.com)
  globex: '81.2.70.10',
  initech: '81.2.71.10',
  umbrella: '81.2.72.10',
  nobody: '198.51.100.7', // in no range: an unattributed session
};

/** One session (a new visitor) from `who`, with page views at these New York times. */
async function session(who: keyof typeof NETWORKS, ...times: string[]) {
  const events = times.map((time, i) => pageview(`${SITE}/page-${i}`, Date.parse(time)));
  const answer = await collector(t.url)(visit(ws.tracking_script_id, events), {
    'x-forwarded-for': NETWORKS[who],
  });
  expect(answer.status).toBe(202);
}

/** Another server on the same database, its digest clock set to `now`. */
async function startServer(now: Date) {
  const url = t.deps.config.databaseUrl as string;
  const database = connect(url);
  const app = await buildApp({
    ...t.deps,
    db: database.db,
    tokens: new Tokens(database.db, t.deps.keys.tokenSigning),
    clock: () => now,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const server = {
    close: async () => {
      await app.close();
      await database.close();
    },
  };
  servers.push(server);
  return server;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The numbered lines of a digest e-mail's text: the organisations listed. */
const listed = (text: string | undefined) =>
  (text ?? '').split('\n').filter((line) => /^\d+\. /.test(line));
const digestData = async (ruleName: string) => {
  const rows = await t.database.db
    .selectFrom('notification_deliveries')
    .select(['data', 'period_start'])
    .where('rule_id', '=', rules[ruleName] as string)
    .orderBy('created_at')
    .execute();
  // biome-ignore lint/suspicious/noExplicitAny: the digest's JSON as stored
  return { rows: rows.map((row) => row.data as any) };
};

beforeAll(async () => {
  smtp = await startSmtpServer();
  hook = await startReceiver([200]);
  // This server's digest clock is before the rules' time: it never finds one due.
  t = await startWebhookApp(
    { SMTP_URL: smtp.url, SMTP_FROM: 'digests@footfall.example', PUBLIC_URL },
    { clock: () => new Date('2026-11-10T00:00:00Z') },
  );
  await upsertIpRanges(t.database.db, [
    { network: '81.2.70.0/24', domain: 'globex.com', name: 'Globex' },
    { network: '81.2.71.0/24', domain: 'initech.com', name: 'Initech' },
    { network: '81.2.72.0/24', domain: 'umbrella.com', name: 'Umbrella' },
  ]);
  await addCompanies(t.database.db, [
    ACME,
    {
      domain: 'globex.com',
      name: 'Globex Corporation',
      industry: 'Manufacturing',
      address: { country: 'US' },
    },
    { domain: 'umbrella.com', name: 'Umbrella Corporation', industry: 'Pharmaceuticals' },
  ]);
  api = client(t.url, (await t.operator()).token);
  ws = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;

  // Thursday 19 November, one second before New York's midnight (already the 20th in UTC).
  await session('acme', '2026-11-19T23:59:30-05:00');
  // Friday 20 November.
  await session('globex', '2026-11-20T00:00:30-05:00', '2026-11-20T00:02:00-05:00');
  await session(
    'acme',
    '2026-11-20T12:00:00-05:00',
    '2026-11-20T12:01:00-05:00',
    '2026-11-20T12:02:00-05:00',
  );
  await session('initech', '2026-11-20T15:00:00-05:00');
  await session('nobody', '2026-11-20T16:00:00-05:00');
  await session('acme', '2026-11-20T23:59:00-05:00', '2026-11-20T23:59:40-05:00');
  // Saturday 21 November, just after midnight (still the 21st in UTC as well).
  await session('umbrella', '2026-11-21T00:00:10-05:00');

  const organisations = await api('GET', `/v1/workspaces/${ws.uuid}/organisations?size=100`);
  for (const org of organisations.body.data) orgs[org.name] = org.uuid;
  expect(Object.keys(orgs).sort()).toEqual([
    'Acme Corporation',
    'Globex Corporation',
    'Initech',
    'Umbrella Corporation',
  ]);

  const rule = async (name: string, body: Record<string, unknown>) => {
    const created = await api('POST', `/v1/workspaces/${ws.uuid}/notifications`, {
      name,
      timezone: NY,
      ...body,
    });
    expect(created.status).toBe(201);
    rules[name] = created.body.data.uuid;
  };
  await rule('daily', {
    trigger: 'digest.daily',
    channel: { type: 'email', to: ['sales@site.example'] },
  });
  await rule('weekly', {
    trigger: 'digest.weekly',
    channel: { type: 'webhook', url: hook.url, secret: 'a-secret-of-twenty-chars' },
  });
  // Made "on 15 November": a rule's first digest is the first 07:00 after it was made.
  await t.database.db
    .updateTable('notification_rules')
    .set({ created_at: new Date('2026-11-15T00:00:00Z') } as never)
    .where('workspace_id', '=', ws.uuid)
    .execute();
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await t.close();
  await Promise.all([smtp.close(), hook.close()]);
});

describe('digests', () => {
  it('a daily digest lists exactly the organisations whose sessions started on that New York day, once, with two servers', async () => {
    // Two servers' jobs at once, each on its own connection pool, at 06:55 on Saturday:
    // Thursday's daily digest and the week of 9..15 November are due, once each.
    const one = connect(t.deps.config.databaseUrl as string);
    const two = connect(t.deps.config.databaseUrl as string);
    const counts = await Promise.all([
      sendDueDigests({ db: one.db, base: PUBLIC_URL }, SAT_0655),
      sendDueDigests({ db: two.db, base: PUBLIC_URL }, SAT_0655),
      sendDueDigests({ db: one.db, base: PUBLIC_URL }, SAT_0655),
    ]);
    await Promise.all([one.close(), two.close()]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(2);

    await until(() => smtp.messages.length >= 1 && hook.received.length >= 1);
    await pause(1500);
    expect(smtp.messages).toHaveLength(1);
    const thursday = smtp.messages[0];
    expect(thursday?.subject).toBe(
      'Daily digest: 1 organisation visited site.example on Thursday 19 November 2026',
    );
    expect(listed(thursday?.text)).toEqual(['1. Acme Corporation (acme.com)']);
    expect(thursday?.text).toContain(
      'Software · United Kingdom · 1 session · 1 page view · last seen Thu 23:59',
    );

    // The week before was empty: the digest says so rather than staying silent.
    expect(hook.received).toHaveLength(1);
    const week = JSON.parse(hook.received[0]?.body ?? '{}');
    expect(hook.received[0]?.headers['x-footfall-event']).toBe('digest.weekly');
    expect(week.period).toEqual({
      start: '2026-11-09T05:00:00.000Z',
      end: '2026-11-16T05:00:00.000Z',
    });
    expect(week.data).toMatchObject({
      digest: 'weekly',
      timezone: NY,
      period: { first_day: '2026-11-09', last_day: '2026-11-15' },
      totals: { organisations: 0, sessions: 0, pageviews: 0 },
      organisations: [],
      more: 0,
    });

    // 07:05: two more servers start (their jobs run at once); Friday's digest goes out once.
    await Promise.all([startServer(SAT_0705), startServer(SAT_0705)]);
    await until(() => smtp.messages.length >= 2);
    await pause(1500);
    expect(smtp.messages).toHaveLength(2);
    const friday = smtp.messages[1];
    expect(friday?.subject).toBe(
      'Daily digest: 3 organisations visited site.example on Friday 20 November 2026',
    );
    expect(friday?.to).toMatchObject({ text: 'sales@site.example' });
    expect(listed(friday?.text)).toEqual([
      '1. Acme Corporation (acme.com)',
      '2. Globex Corporation (globex.com)',
      '3. Initech (initech.com)',
    ]);
    expect(friday?.text).toContain('3 organisations, 4 sessions, 8 page views.');
    expect(friday?.text).toContain(
      'Software · United Kingdom · 2 sessions · 5 page views · last seen Fri 23:59',
    );
    const acmeLink = `${PUBLIC_URL}/w/${ws.uuid}/organisations/${orgs['Acme Corporation']}`;
    expect(friday?.text).toContain(acmeLink);
    expect(friday?.html).toContain(`href="${acmeLink.replace('&', '&amp;')}"`);
    expect(friday?.html).toContain('Globex Corporation');
    expect(friday?.html).not.toContain('Umbrella');

    const daily = (await digestData('daily')).rows;
    expect(daily).toHaveLength(2);
    expect(daily[1].organisations).toEqual([
      {
        uuid: orgs['Acme Corporation'],
        name: 'Acme Corporation',
        domain: 'acme.com',
        industry: 'Software',
        country: 'GB',
        sessions: 2,
        pageviews: 5,
        last_seen: '2026-11-21T04:59:40.000Z',
        // Scores are the scoring job's (test/scoring/ checks them); what they read is exact.
        score: expect.any(Number),
        pages: [`${SITE}/page-0`, `${SITE}/page-1`, `${SITE}/page-2`],
        link: acmeLink,
      },
      expect.objectContaining({
        name: 'Globex Corporation',
        country: 'US',
        sessions: 1,
        pageviews: 2,
      }),
      expect.objectContaining({
        name: 'Initech',
        industry: '',
        country: '',
        sessions: 1,
        pageviews: 1,
      }),
    ]);
  });

  it('sends nothing twice after a restart, and catches up only the latest period', async () => {
    for (const server of servers.splice(0)) await server.close();
    // A restarted server at the same moment: its job runs at start and finds both sent.
    await startServer(SAT_0705);
    expect(await sendDueDigests({ db: t.database.db, base: PUBLIC_URL }, SAT_0705)).toBe(0);
    await pause(1500);
    expect(smtp.messages).toHaveLength(2);
    expect(hook.received).toHaveLength(1);
    const log = await api(
      'GET',
      `/v1/workspaces/${ws.uuid}/notifications/${rules.daily}/deliveries`,
    );
    expect(log.body.total).toBe(2);
    expect(log.body.data.map((d: { status: string }) => d.status)).toEqual([
      'delivered',
      'delivered',
    ]);

    // Down over the weekend until Monday 07:05: Saturday's daily digest is skipped, Sunday's
    // (nobody came) and the week of 16..22 November are sent.
    expect(await sendDueDigests({ db: t.database.db, base: PUBLIC_URL }, MON_0705)).toBe(2);
    await until(() => smtp.messages.length >= 3 && hook.received.length >= 2);
    await pause(1000);
    expect(smtp.messages).toHaveLength(3);
    expect(smtp.messages[2]?.subject).toBe(
      'Daily digest: no organisations visited site.example on Sunday 22 November 2026',
    );
    expect(listed(smtp.messages[2]?.text)).toEqual([]);

    const week = JSON.parse(hook.received[1]?.body ?? '{}');
    expect(week.data.period).toEqual({
      first_day: '2026-11-16',
      last_day: '2026-11-22',
      start: '2026-11-16T05:00:00.000Z',
      end: '2026-11-23T05:00:00.000Z',
    });
    expect(
      week.data.organisations.map((o: { name: string; sessions: number }) => [o.name, o.sessions]),
    ).toEqual([
      ['Acme Corporation', 3],
      ['Globex Corporation', 1],
      ['Initech', 1],
      ['Umbrella Corporation', 1],
    ]);
    expect(week.data.totals).toEqual({ organisations: 4, sessions: 6, pageviews: 10 });
  });

  it('a segment filter lists only its members; a digest of more than 50 organisations counts the rest', async () => {
    for (const server of servers.splice(0)) await server.close();
    const segment = await api('POST', `/v1/workspaces/${ws.uuid}/segments`, {
      name: 'Corporations',
      filters: {
        operator: 'AND',
        conditions: [{ field: 'name', comparison: 'contains', value: 'Corporation' }],
      },
    });
    expect(segment.status).toBe(201);
    const created = await api('POST', `/v1/workspaces/${ws.uuid}/notifications`, {
      name: 'corporations',
      trigger: 'digest.weekly',
      timezone: NY,
      filter: { segment_uuid: segment.body.uuid },
      channel: { type: 'webhook', url: hook.url, secret: 'a-secret-of-twenty-chars' },
    });
    expect(created.status).toBe(201);
    // Segment membership is computed in the background.
    await until(async () => {
      const members = await api(
        'GET',
        `/v1/workspaces/${ws.uuid}/sessions?date_from=2026-11-16&date_to=2026-11-23&segmentUuid=${segment.body.uuid}`,
      );
      return members.body.total === 5;
    });
    // Made on 20 November: its first digest is Monday's.
    await t.database.db
      .updateTable('notification_rules')
      .set({ created_at: new Date('2026-11-20T00:00:00Z') } as never)
      .where('id', '=', created.body.data.uuid)
      .execute();
    expect(await sendDueDigests({ db: t.database.db, base: PUBLIC_URL }, MON_0705)).toBe(1);
    await until(() => hook.received.length >= 3);
    const corporations = JSON.parse(hook.received[2]?.body ?? '{}');
    expect(corporations.segment).toEqual({ uuid: segment.body.uuid, name: 'Corporations' });
    expect(corporations.data.organisations.map((o: { name: string }) => o.name)).toEqual([
      'Acme Corporation',
      'Globex Corporation',
      'Umbrella Corporation',
    ]);

    // 55 organisations with one session each on Sunday 22 November, straight into the tables.
    const db = t.database.db;
    const many = Array.from({ length: 55 }, (_, i) => ({
      workspace_id: ws.uuid,
      id: randomUUID(),
      domain: `org${String(i).padStart(2, '0')}.example`,
      name: `Org ${String(i).padStart(2, '0')}`,
    }));
    await db.insertInto('organisations').values(many).execute();
    await db
      .insertInto('sessions')
      .values(
        many.map((org) => ({
          workspace_id: ws.uuid,
          id: randomUUID(),
          visitor_id: randomUUID(),
          organisation_id: org.id,
          started_at: new Date('2026-11-22T15:00:00Z'),
          ended_at: new Date('2026-11-22T15:00:00Z'),
          referrer: '',
          referrer_at: null,
          country: '',
          state: '',
          city: '',
          latitude: 0,
          longitude: 0,
          browser: '',
          device_type: '',
        })),
      )
      .execute();
    const digest = await digestOf(
      db,
      {
        workspace_id: ws.uuid,
        id: rules.daily as string,
        trigger: 'digest.daily',
        timezone: NY,
        owner_id: null,
        segment_id: null,
      },
      {
        firstDay: '2026-11-22',
        lastDay: '2026-11-22',
        start: new Date('2026-11-22T05:00:00Z'),
        end: new Date('2026-11-23T05:00:00Z'),
      },
      PUBLIC_URL,
    );
    expect(digest.totals.organisations).toBe(55);
    expect(digest.organisations).toHaveLength(50);
    expect(digest.more).toBe(5);
    expect(digest.organisations[0]?.name).toBe('Org 00');
    expect(digest.organisations[49]?.name).toBe('Org 49');
  });
  it('a server that is still sending a period (or fails) holds off the others only while it does', async () => {
    const created = await api('POST', `/v1/workspaces/${ws.uuid}/notifications`, {
      name: 'held',
      trigger: 'digest.daily',
      timezone: NY,
      channel: { type: 'webhook', url: hook.url, secret: 'a-secret-of-twenty-chars' },
    });
    expect(created.status).toBe(201);
    const rule = created.body.data.uuid;
    await t.database.db
      .updateTable('notification_rules')
      .set({ created_at: new Date('2026-11-20T00:00:00Z') } as never)
      .where('id', '=', rule)
      .execute();
    // Another server has claimed Sunday's period and not committed yet.
    const other = connect(t.deps.config.databaseUrl as string);
    let release: (commit: boolean) => void = () => {};
    const decided = new Promise<boolean>((resolve) => {
      release = resolve;
    });
    let claimed: () => void = () => {};
    const isClaimed = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    const holder = other.db
      .transaction()
      .execute(async (trx) => {
        await trx
          .insertInto('digest_periods')
          .values({
            workspace_id: ws.uuid,
            rule_id: rule,
            trigger: 'digest.daily',
            period_start: new Date('2026-11-22T05:00:00Z'),
            period_end: new Date('2026-11-23T05:00:00Z'),
            organisations: 0,
          })
          .execute();
        claimed();
        if (!(await decided)) throw new Error('the other server failed');
      })
      .catch(() => {});
    await isClaimed;
    const started = Date.now();
    expect(await sendDueDigests({ db: t.database.db, base: PUBLIC_URL }, MON_0705)).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    // It failed: its claim is gone, and the next round sends the digest.
    release(false);
    await holder;
    await other.close();
    expect(await sendDueDigests({ db: t.database.db, base: PUBLIC_URL }, MON_0705)).toBe(1);
    expect(await sendDueDigests({ db: t.database.db, base: PUBLIC_URL }, MON_0705)).toBe(0);
  });
});
