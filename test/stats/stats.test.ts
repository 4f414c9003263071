import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { forgetPerson } from '../../src/privacy/forget.js';
import { deleteExpired } from '../../src/privacy/retention.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { addCompanies } from '../helpers/companies.js';

// Three organisations behind their own ranges, one visitor the ranges do not know (until it
// identifies itself as Initech), over five days around two UTC midnights.
const ORGS = [
  { network: '81.2.69.0/24', ip: '81.2.69.160', domain: 'acme.com', name: 'Acme' },
  { network: '2001:4860::/32', ip: '2001:4860:4860::8888', domain: 'globex.com', name: 'Globex' },
  { network: '1.1.1.0/24', ip: '1.1.1.1', domain: 'hooli.com', name: 'Hooli' },
] as const;
const UNKNOWN_IP = '203.0.113.9';
const AT = (day: string, time = '12:00') => Date.parse(`${day}T${time}:00Z`);
const PAGE = (path: string) => `https://site.example/${path}`;
const DAYS = ['2026-04-01', '2026-04-02', '2026-04-03', '2026-04-04', '2026-04-05'];

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
let send: (ip: string, visitor: string, events: Record<string, unknown>[]) => Promise<void>;
const anonymous = randomUUID();
const acmeVisitor = randomUUID();

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1', PUBLIC_URL: 'https://ff.example' });
  api = client(t.url, (await t.operator()).token);
  await upsertIpRanges(
    t.database.db,
    ORGS.map(({ network, domain, name }) => ({ network, domain, name })),
  );
  await addCompanies(t.database.db, [
    { domain: 'acme.com', industry: 'Software', address: { country: 'GB' } },
    { domain: 'globex.com', industry: 'Software', address: { country: 'US' } },
    { domain: 'hooli.com', industry: 'Retail' },
    { domain: 'initech.com', industry: 'Finance', address: { country: 'US' } },
  ]);
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body
    .data;
  ws = workspace.uuid;
  const collect = collector(t.url);
  send = async (ip, visitor, events) => {
    const answer = await collect(visit(workspace.tracking_script_id, events, { visitor }), {
      'x-forwarded-for': ip,
    });
    expect(answer.status).toBe(202);
  };
  const [acme, globex, hooli] = ORGS;
  // Acme: two sessions on the first day (one from Google), one across midnight into the third.
  await send(acme.ip, acmeVisitor, [
    pageview(PAGE('pricing'), AT('2026-04-01', '09:00'), 'https://www.google.com/search'),
    pageview(PAGE('product'), AT('2026-04-01', '09:01')),
    pageview(PAGE('pricing'), AT('2026-04-01', '09:02')),
  ]);
  await send(acme.ip, acmeVisitor, [pageview(PAGE(''), AT('2026-04-01', '15:00'))]);
  await send(acme.ip, randomUUID(), [
    pageview(PAGE('blog'), AT('2026-04-02', '23:50'), 'https://news.example/item'),
    pageview(PAGE('pricing'), AT('2026-04-03', '00:10')),
  ]);
  await send(globex.ip, randomUUID(), [
    pageview(PAGE(''), AT('2026-04-01', '10:00'), 'https://www.bing.com/'),
    pageview(PAGE('docs'), AT('2026-04-01', '10:05')),
  ]);
  await send(globex.ip, randomUUID(), [pageview(PAGE('pricing'), AT('2026-04-03'))]);
  await send(hooli.ip, randomUUID(), [
    pageview(`${PAGE('jobs')}?utm_source=newsletter`, AT('2026-04-04')),
    { type: 'click', ts: AT('2026-04-04') + 5000, url: PAGE('jobs'), href: 'x', text: 'y' },
  ]);
  // A visitor nobody knows yet: stored, not attributed, not counted by the sessions list.
  await send(UNKNOWN_IP, anonymous, [
    pageview(PAGE('pricing'), AT('2026-04-02', '08:00')),
    pageview(PAGE('docs'), AT('2026-04-02', '08:03')),
  ]);
  await send(UNKNOWN_IP, anonymous, [pageview(PAGE('careers'), AT('2026-04-05', '08:00'))]);
});
afterAll(() => t.close());

const stats = (query: string) => api('GET', `/v1/workspaces/${ws}/stats?${query}`);

interface ListedSession {
  organisation_uuid: string;
  views: { url: string; visited_at: string }[];
}
/** Every session the sessions list shows for one day (one page of up to 1,000). */
async function listed(day: string, segment?: string): Promise<ListedSession[]> {
  const query = `date=${day}&size=1000${segment ? `&segmentUuid=${segment}` : ''}`;
  const answer = await api('GET', `/v1/workspaces/${ws}/sessions?${query}`);
  expect(answer.status).toBe(200);
  expect(answer.body.data).toHaveLength(answer.body.total);
  return answer.body.data;
}

interface Day {
  date: string;
  sessions: number;
  organisations: number;
  pageviews: number;
  visitors: number;
  identified_visitors: number;
}

/**
 * The contract between the chart and the lists: each day's figures are the list's, and
 * the range's totals are the days' sums and the organisations list's total.
 */
async function expectDaysMatchTheSessionsList(segment?: string) {
  const only = segment ? `&segmentUuid=${segment}` : '';
  const range = `date_from=${DAYS[0]}&date_to=${DAYS.at(-1)}`;
  const answer = await stats(`${range}${only}`);
  expect(answer.status).toBe(200);
  const days: Day[] = answer.body.data.days;
  expect(days.map((d) => d.date)).toEqual(DAYS);
  let sessions = 0;
  for (const day of days) {
    const list = await listed(day.date, segment);
    sessions += list.length;
    expect(day).toMatchObject({
      sessions: list.length,
      organisations: new Set(list.map((s) => s.organisation_uuid)).size,
      pageviews: list.reduce((sum, s) => sum + s.views.length, 0),
    });
  }
  expect(sessions).toBeGreaterThan(0);
  const organisations = await api('GET', `/v1/workspaces/${ws}/organisations?${range}${only}`);
  expect(answer.body.data.totals).toMatchObject({
    sessions,
    organisations: organisations.body.total,
    pageviews: days.reduce((sum, d) => sum + d.pageviews, 0),
  });
  return answer.body.data;
}

/** Each day's [visitors, identified visitors]. */
const visitorsPerDay = (days: Day[]) => days.map((d) => [d.visitors, d.identified_visitors]);

describe('GET /v1/workspaces/{ws}/stats', () => {
  it('gives each day the sessions list’s total, its organisations and their page views', async () => {
    const data = await expectDaysMatchTheSessionsList();
    expect(data.days.map((d: { sessions: number }) => d.sessions)).toEqual([3, 1, 1, 1, 0]);
    expect(data.days[0]).toMatchObject({ organisations: 2, pageviews: 6 });
    // The session across midnight counts on the day it started, all its views with it.
    expect(data.days[1]).toMatchObject({ organisations: 1, pageviews: 2 });
  });

  it('counts each day’s distinct visitors, and those identified, and each visitor once in the totals', async () => {
    const data = (await stats(`date_from=${DAYS[0]}&date_to=${DAYS.at(-1)}`)).body.data;
    // 04-01: Acme's first visitor (twice) and Globex's; 04-02: Acme's second visitor (until
    // past midnight, so on 04-03 too) and the unknown one; 04-03: also Globex's second;
    // 04-04: Hooli's; 04-05: the unknown visitor again.
    expect(visitorsPerDay(data.days)).toEqual([
      [2, 2],
      [2, 1],
      [2, 2],
      [1, 1],
      [1, 0],
    ]);
    // Six visitors, not the days' eight: two of them came on two days.
    expect(data.totals).toEqual({
      visitors: 6,
      identified_visitors: 5,
      sessions: 6,
      organisations: 3,
      pageviews: 10,
    });
  });

  it('zero-fills days without sessions, and answers every list empty for an empty range', async () => {
    const answer = await stats('date_from=2025-12-30&date_to=2026-01-02');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      data: {
        days: ['2025-12-30', '2025-12-31', '2026-01-01', '2026-01-02'].map((date) => ({
          date,
          sessions: 0,
          organisations: 0,
          pageviews: 0,
          visitors: 0,
          identified_visitors: 0,
        })),
        totals: {
          visitors: 0,
          identified_visitors: 0,
          sessions: 0,
          organisations: 0,
          pageviews: 0,
        },
        top_pages: [],
        top_sources: [],
        top_industries: [],
        top_countries: [],
        top_organisations: [],
      },
    });
  });

  it('lists top pages by the identified visitors’ views on the range’s days, as the days count', async () => {
    const { top_pages } = (await stats('date_from=2026-04-01&date_to=2026-04-02')).body.data;
    // Not the unknown visitor's views of pricing and docs on 04-02; the views after
    // midnight fall on 04-03.
    expect(top_pages).toEqual([
      { url: PAGE(''), pageviews: 2 },
      { url: PAGE('pricing'), pageviews: 2 },
      { url: PAGE('blog'), pageviews: 1 },
      { url: PAGE('docs'), pageviews: 1 },
      { url: PAGE('product'), pageviews: 1 },
    ]);
  });

  it('lists sources by attributed sessions, industries and countries by organisations', async () => {
    const data = (await stats(`date_from=${DAYS[0]}&date_to=${DAYS.at(-1)}`)).body.data;
    expect(data.top_sources).toEqual([
      { source: 'direct', sessions: 2 },
      { source: 'bing.com', sessions: 1 },
      { source: 'google.com', sessions: 1 },
      { source: 'news.example', sessions: 1 },
      { source: 'newsletter', sessions: 1 },
    ]);
    // Hooli's profile has no country: it is counted under industries only.
    expect(data.top_industries).toEqual([
      { industry: 'Software', organisations: 2 },
      { industry: 'Retail', organisations: 1 },
    ]);
    expect(data.top_countries).toEqual([
      { country: 'GB', organisations: 1 },
      { country: 'US', organisations: 1 },
    ]);
  });

  it('lists the most active organisations by their sessions in the sessions list', async () => {
    const data = (await stats(`date_from=${DAYS[0]}&date_to=${DAYS.at(-1)}`)).body.data;
    const sessions = new Map<string, number>();
    for (const day of DAYS) {
      for (const session of await listed(day)) {
        sessions.set(session.organisation_uuid, (sessions.get(session.organisation_uuid) ?? 0) + 1);
      }
    }
    const leaders = data.top_organisations as { uuid: string; name: string; sessions: number }[];
    expect(Object.fromEntries(leaders.map((o) => [o.uuid, o.sessions]))).toEqual(
      Object.fromEntries(sessions),
    );
    const counts = leaders.map((o) => o.sessions);
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
    const names = (await api('GET', `/v1/workspaces/${ws}/organisations?size=100`)).body.data;
    for (const leader of leaders) {
      expect(leader.name).toBe(names.find((o: { uuid: string }) => o.uuid === leader.uuid)?.name);
    }
  });

  it('gives a range of whole months the figures of its days, read from the monthly rollups', async () => {
    const figuresOf = async (query: string) => {
      const answer = await stats(query);
      expect(answer.status).toBe(200);
      const { days, ...figures } = answer.body.data;
      return { days: (days as Day[]).filter((d) => d.sessions > 0 || d.visitors > 0), figures };
    };
    const fiveDays = await figuresOf(`date_from=${DAYS[0]}&date_to=${DAYS.at(-1)}`);
    expect(fiveDays.figures.totals.sessions).toBeGreaterThan(0);
    expect(fiveDays.figures.top_pages.length).toBeGreaterThan(0);
    // April alone (a month, no days), and April with days of March and May either side.
    for (const range of [
      'date_from=2026-04-01&date_to=2026-04-30',
      'date_from=2026-03-20&date_to=2026-05-10',
    ]) {
      expect({ range, ...(await figuresOf(range)) }).toEqual({ range, ...fiveDays });
    }
  });

  it('over a segment, counts its organisations only, as the sessions list does', async () => {
    const created = await api('POST', `/v1/workspaces/${ws}/segments`, {
      name: 'Software',
      filters: {
        operator: 'AND',
        conditions: [{ field: 'industry', comparison: 'equal', value: 'Software' }],
      },
    });
    expect(created.status).toBe(201);
    const segment = created.body.uuid;
    const data = await expectDaysMatchTheSessionsList(segment);
    expect(data.days.map((d: { sessions: number }) => d.sessions)).toEqual([3, 1, 1, 0, 0]);
    // The visitors of the segment's organisations, every one of them identified.
    expect(visitorsPerDay(data.days)).toEqual([
      [2, 2],
      [1, 1],
      [2, 2],
      [0, 0],
      [0, 0],
    ]);
    expect(data.totals).toMatchObject({ visitors: 4, identified_visitors: 4 });
    expect(data.top_industries).toEqual([{ industry: 'Software', organisations: 2 }]);
    expect(data.top_sources.map((s: { source: string }) => s.source)).not.toContain('newsletter');
    // The segment's page views are its sessions' views, as the sessions list shows them.
    const views = new Map<string, number>();
    for (const day of DAYS) {
      for (const session of await listed(day, segment)) {
        for (const view of session.views) views.set(view.url, (views.get(view.url) ?? 0) + 1);
      }
    }
    expect(
      Object.fromEntries(
        data.top_pages.map((p: { url: string; pageviews: number }) => [p.url, p.pageviews]),
      ),
    ).toEqual(Object.fromEntries(views));
  });

  it('over a segment, counts a session that began longer before the range than any other', async () => {
    const [acme] = ORGS;
    const visitor = randomUUID();
    // Views every 20 minutes from 20:00 on 06-10 to 01:00 on 06-11, sent in two requests:
    // the session is stored an hour long, then made five hours long.
    const views = Array.from({ length: 16 }, (_, i) =>
      pageview(PAGE(`long/${i}`), AT('2026-06-10', '20:00') + i * 20 * 60_000),
    );
    await send(acme.ip, visitor, views.slice(0, 4));
    await send(acme.ip, visitor, views.slice(4));
    const created = await api('POST', `/v1/workspaces/${ws}/segments`, {
      name: 'Software, late',
      filters: {
        operator: 'AND',
        conditions: [{ field: 'industry', comparison: 'equal', value: 'Software' }],
      },
    });
    const answer = await stats(
      `date_from=2026-06-11&date_to=2026-06-11&segmentUuid=${created.body.uuid}`,
    );
    expect(answer.status).toBe(200);
    // The session is the day before's; its visitor and its views after midnight are this day's.
    expect(visitorsPerDay(answer.body.data.days)).toEqual([[1, 1]]);
    expect(answer.body.data.totals).toMatchObject({ sessions: 0, visitors: 1 });
    expect(answer.body.data.top_pages).toEqual(
      [12, 13, 14, 15].map((i) => ({ url: PAGE(`long/${i}`), pageviews: 1 })),
    );
  });

  it('follows a visitor identified later, a person forgotten and expired data', async () => {
    // The anonymous visitor says who they are: their earlier sessions become Initech's.
    await send(UNKNOWN_IP, anonymous, [
      pageview(PAGE('contact'), AT('2026-04-05', '08:10')),
      {
        type: 'identify',
        ts: AT('2026-04-05', '08:11'),
        url: PAGE('contact'),
        email: 'jo@initech.com',
      },
    ]);
    let data = await expectDaysMatchTheSessionsList();
    expect(data.days.map((d: { sessions: number }) => d.sessions)).toEqual([3, 2, 1, 1, 1]);
    expect(data.top_industries).toContainEqual({ industry: 'Finance', organisations: 1 });
    // Their visits of 04-02 and 04-05 are now identified, and so are their views.
    expect(visitorsPerDay(data.days)).toEqual([
      [2, 2],
      [2, 2],
      [2, 2],
      [1, 1],
      [1, 1],
    ]);
    expect(data.totals).toMatchObject({ visitors: 6, identified_visitors: 6, organisations: 4 });
    const early = (await stats('date_from=2026-04-02&date_to=2026-04-02')).body.data;
    expect(early.top_pages).toEqual([
      { url: PAGE('blog'), pageviews: 1 },
      { url: PAGE('docs'), pageviews: 1 },
      { url: PAGE('pricing'), pageviews: 1 },
    ]);

    await forgetPerson(t.database.db, ws, { visitorId: acmeVisitor });
    data = await expectDaysMatchTheSessionsList();
    expect(data.days[0]).toMatchObject({ sessions: 1, organisations: 1, pageviews: 2 });
    expect(data.days[0]).toMatchObject({ visitors: 1, identified_visitors: 1 });
    expect(data.totals).toMatchObject({ visitors: 5, identified_visitors: 5 });

    // Retention of 3 days on 2026-04-07: what ended before 04-04 goes.
    await deleteExpired(t.database.db, 3, new Date('2026-04-07T00:00:00Z'));
    data = await expectDaysMatchTheSessionsList();
    expect(data.days.map((d: { sessions: number }) => d.sessions)).toEqual([0, 0, 0, 1, 1]);
    expect(visitorsPerDay(data.days)).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
      [1, 1],
      [1, 1],
    ]);
    expect(data.top_pages.map((p: { url: string }) => p.url).sort()).toEqual(
      [PAGE('careers'), PAGE('contact'), PAGE('jobs?utm_source=newsletter')].sort(),
    );
  });
});

describe('GET /v1/workspaces/{ws}/stats: what it refuses', () => {
  it('needs both dates, as YYYY-MM-DD, in order, at most 366 days apart', async () => {
    expectFieldError(await stats('date_to=2026-04-01'), 'date_from');
    expectFieldError(await stats('date_from=2026-04-01'), 'date_to');
    expectFieldError(await stats('date_from=2026-4-1&date_to=2026-04-02'), 'date_from', true);
    expectFieldError(await stats('date_from=2026-04-01&date_to=2026-02-30'), 'date_to', true);
    expectFieldError(await stats('date_from=2026-04-02&date_to=2026-04-01'), 'date_to', true);
    expectFieldError(await stats('date_from=2025-01-01&date_to=2026-01-02'), 'date_to', true);
    const year = await stats('date_from=2024-01-01&date_to=2024-12-31');
    expect(year.status).toBe(200);
    expect(year.body.data.days).toHaveLength(366);
  });

  it('answers 404 for an unknown, foreign or malformed segment and a foreign workspace', async () => {
    const range = 'date_from=2026-04-01&date_to=2026-04-02';
    expect((await stats(`${range}&segmentUuid=${randomUUID()}`)).status).toBe(404);
    expect((await stats(`${range}&segmentUuid=not-a-uuid`)).status).toBe(404);
    const stranger = client(t.url, (await t.operator()).token);
    const theirs = (await stranger('POST', '/v1/workspaces', { url: 'https://other.example' })).body
      .data.uuid;
    const foreign = await stranger('POST', `/v1/workspaces/${theirs}/segments`, {
      name: 'All',
      filters: { operator: 'AND', conditions: [] },
    });
    expect((await stats(`${range}&segmentUuid=${foreign.body.uuid}`)).status).toBe(404);
    const answer = await stranger('GET', `/v1/workspaces/${ws}/stats?${range}`);
    expect(answer.status).toBe(404);
    expect(answer.body.success).toBe(false);
  });
});
