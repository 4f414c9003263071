import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { SESSION_PAGES_KEPT } from '../../src/ingest/store.js';
import { forgetPerson } from '../../src/privacy/forget.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { addCompanies } from '../helpers/companies.js';

// A segment's top pages count its sessions' views: of a session wholly inside the range from
// the URLs its row keeps, of any other from its events (migration 0041). Either way they are
// the views the sessions list shows, whatever happened to the session since.

const ACME = { network: '81.2.69.0/24', ip: '81.2.69.160', domain: 'acme.com', name: 'Acme' };
const PAGE = (path: string) => `https://site.example/${path}`;
const DAY = '2026-05-10';
const AT = (time: string) => Date.parse(`${DAY}T${time}:00Z`);

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
let send: (visitor: string, events: Record<string, unknown>[]) => Promise<void>;

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  api = client(t.url, (await t.operator()).token);
  await upsertIpRanges(t.database.db, [ACME]);
  await addCompanies(t.database.db, [{ domain: 'acme.com', industry: 'Software' }]);
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body
    .data;
  ws = workspace.uuid;
  const collect = collector(t.url);
  send = async (visitor, events) => {
    const answer = await collect(visit(workspace.tracking_script_id, events, { visitor }), {
      'x-forwarded-for': ACME.ip,
    });
    expect(answer.status).toBe(202);
  };
});
afterAll(() => t.close());

/**
 * Of a segment of the organisations as they are now, the top pages of the day and the views
 * of the day's sessions in the list.
 */
async function pagesBothWays() {
  const created = await api('POST', `/v1/workspaces/${ws}/segments`, {
    name: `Software ${randomUUID()}`,
    filters: {
      operator: 'AND',
      conditions: [{ field: 'industry', comparison: 'equal', value: 'Software' }],
    },
  });
  expect(created.status).toBe(201);
  const segment = created.body.uuid;
  const answer = await api(
    'GET',
    `/v1/workspaces/${ws}/stats?date_from=${DAY}&date_to=${DAY}&segmentUuid=${segment}`,
  );
  expect(answer.status).toBe(200);
  const top = Object.fromEntries(
    answer.body.data.top_pages.map((p: { url: string; pageviews: number }) => [p.url, p.pageviews]),
  );
  const list = await api('GET', `/v1/workspaces/${ws}/sessions?date=${DAY}&segmentUuid=${segment}`);
  expect(list.status).toBe(200);
  const listed: Record<string, number> = {};
  for (const session of list.body.data as { views: { url: string }[] }[]) {
    for (const view of session.views) listed[view.url] = (listed[view.url] ?? 0) + 1;
  }
  return { top, listed };
}

describe('GET /v1/workspaces/{ws}/stats over a segment: top pages', () => {
  it('counts the views of sessions sent in two requests, longer than a row keeps or not', async () => {
    // 110 views, 10 seconds apart, over seven pages: the second request takes the session
    // past what its row keeps.
    const views = Array.from({ length: SESSION_PAGES_KEPT + 10 }, (_, i) =>
      pageview(PAGE(`p/${i % 7}`), AT('10:00') + i * 10_000),
    );
    const visitor = randomUUID();
    await send(visitor, views.slice(0, 60));
    await send(visitor, views.slice(60));
    // And a session of two requests that its row keeps whole.
    const other = randomUUID();
    await send(other, [pageview(PAGE('p/0'), AT('12:00')), pageview(PAGE('x'), AT('12:01'))]);
    await send(other, [pageview(PAGE('x'), AT('12:02'))]);
    const { top, listed } = await pagesBothWays();
    expect(top).toEqual(listed);
    expect(top[PAGE('p/0')]).toBe(Math.ceil((SESSION_PAGES_KEPT + 10) / 7) + 1);
    expect(Object.values(top).reduce((a, b) => a + b, 0)).toBe(SESSION_PAGES_KEPT + 13);
  });

  it('no longer counts a view a forget deleted from a session that stays', async () => {
    // The collector keeps no query string, but a page's title is kept as it comes.
    const named = PAGE('welcome');
    await send(randomUUID(), [
      pageview(PAGE('pricing'), AT('15:00')),
      { ...pageview(named, AT('15:01')), title: 'Welcome back, jo@acme.com' },
    ]);
    expect((await pagesBothWays()).top[named]).toBe(1);
    const forgotten = await forgetPerson(t.database.db, ws, { email: 'jo@acme.com' });
    expect(forgotten).toMatchObject({ sessions: 0, events: 1 });
    const { top, listed } = await pagesBothWays();
    expect(top[named]).toBeUndefined();
    expect(top).toEqual(listed);
    expect(top[PAGE('pricing')]).toBe(1);
  });
});
