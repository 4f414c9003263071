import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';

// Contract §16, match rate: how many of a range's visitors are identified, and every other
// figure of the stats counting the identified ones, so that the Overview agrees with itself.
const ACME = { network: '81.2.69.0/24', ip: '81.2.69.160', domain: 'acme.com', name: 'Acme' };
const UNKNOWN = ['203.0.113.9', '203.0.113.10', '198.51.100.7'] as const;
const AT = (day: string, time = '12:00') => Date.parse(`${day}T${time}:00Z`);
const PAGE = (path: string) => `https://site.example/${path}`;

let t: TestApp;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  api = client(t.url, (await t.operator()).token);
  await upsertIpRanges(t.database.db, [ACME]);
});
afterAll(() => t.close());

/** A workspace of its own (a new site), and a way to send its visits from an address. */
async function newSite() {
  const created = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data;
  const collect = collector(t.url);
  return {
    ws: created.uuid as string,
    async send(ip: string, visitor: string, events: Record<string, unknown>[]) {
      const answer = await collect(visit(created.tracking_script_id, events, { visitor }), {
        'x-forwarded-for': ip,
      });
      expect(answer.status).toBe(202);
    },
    async stats(from: string, to = from) {
      const answer = await api(
        'GET',
        `/v1/workspaces/${created.uuid}/stats?date_from=${from}&date_to=${to}`,
      );
      expect(answer.status).toBe(200);
      return answer.body.data;
    },
    async listed(day: string) {
      const answer = await api('GET', `/v1/workspaces/${created.uuid}/sessions?date=${day}`);
      expect(answer.status).toBe(200);
      return answer.body as { total: number; data: { views: { url: string }[] }[] };
    },
  };
}

const perDay = (days: { visitors: number; identified_visitors: number }[]) =>
  days.map((d) => [d.visitors, d.identified_visitors]);

describe('GET .../stats: visitors and identified visitors', () => {
  it('on a new site of unknown visitors, counts them and nothing else, lists and tiles alike', async () => {
    const site = await newSite();
    const day = '2026-05-04';
    // Five page views of three visitors nobody can name.
    await site.send(UNKNOWN[0], randomUUID(), [
      pageview(PAGE(''), AT(day, '09:00')),
      pageview(PAGE('pricing'), AT(day, '09:01')),
    ]);
    await site.send(UNKNOWN[1], randomUUID(), [
      pageview(PAGE('pricing'), AT(day, '10:00')),
      pageview(PAGE('docs'), AT(day, '10:02')),
    ]);
    await site.send(UNKNOWN[2], randomUUID(), [pageview(PAGE('blog'), AT(day))]);
    const data = await site.stats(day);
    expect(data.totals).toEqual({
      visitors: 3,
      identified_visitors: 0,
      sessions: 0,
      organisations: 0,
      pageviews: 0,
    });
    expect(data.days).toEqual([
      {
        date: day,
        sessions: 0,
        organisations: 0,
        pageviews: 0,
        visitors: 3,
        identified_visitors: 0,
      },
    ]);
    // Before, the top pages listed these five views beside a Sessions figure of 0.
    for (const list of ['top_pages', 'top_sources', 'top_organisations', 'top_industries']) {
      expect(data[list], list).toEqual([]);
    }
    expect((await site.listed(day)).total).toBe(0);
  });

  it('counts one of two visitors identified by identify(email), and only their views', async () => {
    const site = await newSite();
    const day = '2026-05-05';
    await site.send(UNKNOWN[0], randomUUID(), [
      pageview(PAGE('pricing'), AT(day, '09:00')),
      identify(PAGE('pricing'), 'jo@initech.com', AT(day, '09:01')),
    ]);
    await site.send(UNKNOWN[1], randomUUID(), [
      pageview(PAGE('careers'), AT(day, '10:00')),
      pageview(PAGE('jobs'), AT(day, '10:01')),
    ]);
    const data = await site.stats(day);
    expect(data.totals).toEqual({
      visitors: 2,
      identified_visitors: 1,
      sessions: 1,
      organisations: 1,
      pageviews: 1,
    });
    expect(perDay(data.days)).toEqual([[2, 1]]);
    expect(data.top_pages).toEqual([{ url: PAGE('pricing'), pageviews: 1 }]);
    const listed = await site.listed(day);
    expect(listed.total).toBe(data.totals.sessions);
    expect(listed.data.flatMap((s) => s.views.map((v) => v.url))).toEqual([PAGE('pricing')]);
  });

  it('moves a visitor identified later into the identified, on their earlier days too', async () => {
    const site = await newSite();
    const [first, second] = ['2026-05-06', '2026-05-07'];
    const visitor = randomUUID();
    await site.send(UNKNOWN[2], visitor, [pageview(PAGE('product'), AT(first))]);
    await site.send(UNKNOWN[2], visitor, [pageview(PAGE('pricing'), AT(second, '08:00'))]);
    let data = await site.stats(first, second);
    expect(perDay(data.days)).toEqual([
      [1, 0],
      [1, 0],
    ]);
    expect(data.totals).toMatchObject({ visitors: 1, identified_visitors: 0, sessions: 0 });
    expect(data.top_pages).toEqual([]);

    await site.send(UNKNOWN[2], visitor, [
      identify(PAGE('pricing'), 'sam@globex-corp.com', AT(second, '08:05')),
    ]);
    data = await site.stats(first, second);
    expect(perDay(data.days)).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(data.totals).toEqual({
      visitors: 1,
      identified_visitors: 1,
      sessions: 2,
      organisations: 1,
      pageviews: 2,
    });
    expect(data.top_pages).toEqual([
      { url: PAGE('pricing'), pageviews: 1 },
      { url: PAGE('product'), pageviews: 1 },
    ]);
  });

  it('counts a visitor once over a range of days, and on each day they came', async () => {
    const site = await newSite();
    const days = ['2026-05-08', '2026-05-09', '2026-05-10'];
    const [known, unknown] = [randomUUID(), randomUUID()];
    await site.send(ACME.ip, known, [pageview(PAGE(''), AT('2026-05-08'))]);
    await site.send(ACME.ip, known, [pageview(PAGE('docs'), AT('2026-05-10'))]);
    for (const day of days) await site.send(UNKNOWN[0], unknown, [pageview(PAGE('blog'), AT(day))]);
    const data = await site.stats(days[0] as string, days[2]);
    expect(perDay(data.days)).toEqual([
      [2, 1],
      [1, 0],
      [2, 1],
    ]);
    expect(data.totals).toMatchObject({ visitors: 2, identified_visitors: 1, sessions: 2 });
  });

  it('counts the views of a session that gains its organisation as it goes on once each', async () => {
    const site = await newSite();
    const day = '2026-05-11';
    const visitor = randomUUID();
    // The same visit, first from an address nobody knows, then from Acme's network: the
    // session becomes Acme's in the write that adds the second view.
    await site.send(UNKNOWN[0], visitor, [pageview(PAGE('pricing'), AT(day, '10:00'))]);
    await site.send(ACME.ip, visitor, [pageview(PAGE('demo'), AT(day, '10:05'))]);
    const listed = await site.listed(day);
    expect(listed.data.map((s) => s.views.length)).toEqual([2]);
    const data = await site.stats(day);
    expect(data.totals).toMatchObject({ visitors: 1, identified_visitors: 1, pageviews: 2 });
    expect(data.top_pages).toEqual([
      { url: PAGE('demo'), pageviews: 1 },
      { url: PAGE('pricing'), pageviews: 1 },
    ]);
  });

  it('counts events stored without saying whether their session is attributed by the session', async () => {
    // Not the collector (it says), but any other writer of events, e.g. a future import.
    const site = await newSite();
    const day = '2026-05-12';
    await site.send(ACME.ip, randomUUID(), [pageview(PAGE(''), AT(day, '09:00'))]);
    await site.send(UNKNOWN[1], randomUUID(), [pageview(PAGE(''), AT(day, '09:30'))]);
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM sessions WHERE workspace_id = ${site.ws}`.execute(t.database.db);
    expect(rows).toHaveLength(2);
    await sql`
      INSERT INTO events (workspace_id, session_id, type, ts, url)
      SELECT workspace_id, id, 'pageview', started_at + interval '1 minute', ${PAGE('team')}
      FROM sessions WHERE id = ANY(${rows.map((r) => r.id)}::uuid[])`.execute(t.database.db);
    const data = await site.stats(day);
    expect(data.top_pages).toEqual([
      { url: PAGE(''), pageviews: 1 },
      { url: PAGE('team'), pageviews: 1 },
    ]);
  });
});
