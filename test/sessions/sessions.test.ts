import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { expectShape, PAGE_SHAPE } from '../helpers/shape.js';

// Three organisations, each behind its own range; visits on fixed days in the past.
const ORGS = [
  { network: '81.2.69.0/24', ip: '81.2.69.160', domain: 'acme.com', name: 'Acme' },
  { network: '2001:4860::/32', ip: '2001:4860:4860::8888', domain: 'globex.com', name: 'Globex' },
  { network: '1.1.1.0/24', ip: '1.1.1.1', domain: 'initech.com', name: 'Initech' },
];
const DAY = (d: string, hour = 12) => Date.parse(`${d}T${String(hour).padStart(2, '0')}:00:00Z`);

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
const visitors = { acme: randomUUID(), globex: randomUUID(), initech: randomUUID() };

async function seed(app: TestApp, call: ReturnType<typeof client>) {
  await upsertIpRanges(
    app.database.db,
    ORGS.map(({ network, domain, name }) => ({ network, domain, name })),
  );
  const workspace = (await call('POST', '/v1/workspaces', { url: 'https://site.example' })).body
    .data;
  const collect = collector(app.url);
  const send = (ip: string, visitor: string, events: Record<string, unknown>[]) =>
    collect(visit(workspace.tracking_script_id, events, { visitor }), { 'x-forwarded-for': ip });
  const [acme, globex, initech] = ORGS as [(typeof ORGS)[0], (typeof ORGS)[0], (typeof ORGS)[0]];
  await send(acme.ip, visitors.acme, [
    pageview('https://site.example/pricing', DAY('2026-03-01', 9), 'https://www.google.com/search'),
    pageview('https://site.example/contact', DAY('2026-03-01', 9) + 30_000),
    {
      type: 'form_submit',
      ts: DAY('2026-03-01', 9) + 60_000,
      url: 'https://site.example/contact',
      form_id: 'contact',
      form_name: 'Contact',
      time_spent: 25,
      fields: [{ name: 'email', value: 'jane@acme.com' }],
    },
    {
      type: 'custom',
      ts: DAY('2026-03-01', 9) + 70_000,
      url: 'https://site.example/contact',
      name: 'demo_requested',
      properties: { plan: 'pro', seats: 12, trial: true },
    },
    {
      type: 'click',
      ts: DAY('2026-03-01', 9) + 80_000,
      url: 'https://site.example/contact',
      href: 'https://twitter.com/acme',
      text: 'Follow us',
    },
  ]);
  await send(acme.ip, visitors.acme, [
    pageview('https://site.example/blog', DAY('2026-03-05'), 'https://news.example/'),
  ]);
  await send(globex.ip, visitors.globex, [
    pageview('https://site.example/', DAY('2026-03-02'), 'https://www.bing.com/'),
  ]);
  await send(initech.ip, visitors.initech, [
    pageview('https://site.example/jobs', DAY('2026-03-03')),
  ]);
  return workspace.uuid as string;
}

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1', PUBLIC_URL: 'https://ff.example' });
  api = client(t.url, (await t.operator()).token);
  ws = await seed(t, api);
});
afterAll(() => t.close());

const list = (query: string) => api('GET', `/v1/workspaces/${ws}/sessions?${query}`);

describe('GET /v1/workspaces/{ws}/sessions', () => {
  it('lists sessions of the range newest first, in the seed’s shape', async () => {
    const answer = await list('date_from=2026-03-01&date_to=2026-03-31');
    expect(answer.status).toBe(200);
    expectShape(answer.body, {
      ...PAGE_SHAPE,
      truncated: 'boolean',
      total_organisations: 'integer',
      organisation_limit: 'integer',
    });
    expect(answer.body).toMatchObject({
      total: 4,
      truncated: false,
      total_organisations: 3,
      organisation_limit: 10000,
      path: `https://ff.example/v1/workspaces/${ws}/sessions`,
    });
    expect(answer.body.data.map((s: { started_at: string }) => s.started_at.slice(0, 10))).toEqual([
      '2026-03-05',
      '2026-03-03',
      '2026-03-02',
      '2026-03-01',
    ]);
    for (const session of answer.body.data) {
      expectShape(session, {
        uuid: 'string',
        organisation_uuid: 'string',
        visitor_uuid: 'string',
        started_at: 'string',
        ended_at: 'string',
        location: 'object',
        browser: 'string',
        referrer: 'string',
        source: 'string',
        device_type: 'string',
        views: 'array',
        events: 'array',
      });
      expectShape(session.location, {
        country: 'string',
        state: 'string',
        city: 'string',
        latitude: 'number',
        longitude: 'number',
      });
      for (const view of session.views) {
        expectShape(view, { visited_at: 'string', time_on_page: 'integer', url: 'string' });
      }
    }
  });

  it('shows views in order and each event with the contract’s fields', async () => {
    const answer = await list(`date=2026-03-01`);
    const [session] = answer.body.data;
    expect(session.visitor_uuid).toBe(visitors.acme);
    expect(session.referrer).toBe('https://www.google.com/search');
    expect(session.views.map((v: { url: string }) => v.url)).toEqual([
      'https://site.example/pricing',
      'https://site.example/contact',
    ]);
    expect(session.views[0].time_on_page).toBe(30);
    const at = (offset: number) => new Date(DAY('2026-03-01', 9) + offset).toISOString();
    expect(session.events).toEqual([
      {
        event_type: 'pageview',
        url: 'https://site.example/pricing',
        triggered_at: at(0),
        time_on_page: 30,
      },
      {
        event_type: 'pageview',
        url: 'https://site.example/contact',
        triggered_at: at(30_000),
        time_on_page: 0,
      },
      {
        event_type: 'form_submit',
        url: 'https://site.example/contact',
        triggered_at: at(60_000),
        form_id: 'contact',
        form_name: 'Contact',
        time_spent: 25,
        fields: [{ name: 'email', value: 'jane@acme.com' }],
      },
      {
        event_type: 'custom',
        url: 'https://site.example/contact',
        triggered_at: at(70_000),
        name: 'demo_requested',
        properties: [
          { name: 'plan', value: 'pro' },
          { name: 'seats', value: '12' },
          { name: 'trial', value: 'true' },
        ],
      },
      {
        event_type: 'click',
        url: 'https://site.example/contact',
        triggered_at: at(80_000),
        properties: [
          { name: 'href', value: 'https://twitter.com/acme' },
          { name: 'text', value: 'Follow us' },
        ],
      },
    ]);
  });

  it('answers 400 without a date and for date with date_from or date_to', async () => {
    for (const query of [
      '',
      'date_to=2026-03-31',
      'date=2026-03-01&date_from=2026-03-01',
      'date=2026-03-01&date_to=2026-03-02',
    ]) {
      const answer = await list(query);
      expect(answer.status, query).toBe(400);
      expect(answer.body).toEqual({ success: false, message: expect.any(String) });
    }
  });

  it('answers 422 for bad dates, a reversed range and paging past 25,000 rows', async () => {
    expectFieldError(await list('date=2026-3-1'), 'date');
    expectFieldError(await list('date=2026-02-30'), 'date');
    expectFieldError(await list('date_from=yesterday'), 'date_from');
    expectFieldError(await list('date_from=2026-03-05&date_to=2026-03-01'), 'date_to');
    expectFieldError(await list('date_from=2026-03-01&page=26&size=1000'), 'page');
    expectFieldError(await list('date_from=2026-03-01&size=1001'), 'size');
    expectFieldError(await list('date_from=2026-03-01&page=0'), 'page');
    expectFieldError(await list('date_from=2026-03-01&visitor_uuid=nope'), 'visitor_uuid');
  });

  it('defaults date_to to today and pages', async () => {
    const first = await list('date_from=2026-03-01&size=3');
    expect(first.body).toMatchObject({ total: 4, per_page: 3, last_page: 2, from: 1, to: 3 });
    expect(first.body.next_page_url).toBe(
      `https://ff.example/v1/workspaces/${ws}/sessions?date_from=2026-03-01&size=3&page=2`,
    );
    const second = await list('date_from=2026-03-01&size=3&page=2');
    expect(second.body.data).toHaveLength(1);
    expect(second.body).toMatchObject({ from: 4, to: 4 });
  });

  it('filters by URL substring, in any case', async () => {
    const answer = await list('date_from=2026-03-01&url=PRICING');
    expect(answer.body.total).toBe(1);
    expect(answer.body.data[0].views[0].url).toBe('https://site.example/pricing');
    expect((await list('date_from=2026-03-01&url=%25')).body.total).toBe(0); // % is literal
  });

  it('filters by referrer substring', async () => {
    const answer = await list('date_from=2026-03-01&referrer=bing');
    expect(answer.body.total).toBe(1);
    expect(answer.body.data[0].referrer).toBe('https://www.bing.com/');
  });

  it('filters by visitor, resolving a client id to its sessions and organisation', async () => {
    const answer = await list(`date_from=2026-03-01&visitor_uuid=${visitors.acme}`);
    expect(answer.body.total).toBe(2);
    expect(new Set(answer.body.data.map((s: { visitor_uuid: string }) => s.visitor_uuid))).toEqual(
      new Set([visitors.acme]),
    );
    expect(answer.body.total_organisations).toBe(1);
  });

  it('filters by segment, and answers 404 for an unknown one', async () => {
    const segment = randomUUID();
    await t.database.db
      .insertInto('segments')
      .values({ workspace_id: ws, id: segment, name: 'Globex only', filters: '{}' })
      .execute();
    const globex = await t.database.db
      .selectFrom('organisations')
      .select('id')
      .where('workspace_id', '=', ws)
      .where('domain', '=', 'globex.com')
      .executeTakeFirstOrThrow();
    await t.database.db
      .insertInto('segment_members')
      .values({ workspace_id: ws, segment_id: segment, organisation_id: globex.id })
      .execute();
    const answer = await list(`date_from=2026-03-01&segmentUuid=${segment}`);
    expect(answer.body.total).toBe(1);
    expect(answer.body.data[0].organisation_uuid).toBe(globex.id);
    expect((await list(`date_from=2026-03-01&segmentUuid=${randomUUID()}`)).status).toBe(404);
    expect((await list('date_from=2026-03-01&segmentUuid=not-a-uuid')).status).toBe(404);
  });

  it('keeps only the most recently active organisations past the limit, and says so', async () => {
    const capped = await startTestApp({
      TRUST_PROXY: '127.0.0.1',
      SESSIONS_ORGANISATION_LIMIT: '2',
    });
    try {
      const call = client(capped.url, (await capped.operator()).token);
      const workspace = await seed(capped, call);
      const answer = await call('GET', `/v1/workspaces/${workspace}/sessions?date_from=2026-03-01`);
      expect(answer.body).toMatchObject({
        truncated: true,
        total_organisations: 3,
        organisation_limit: 2,
        total: 3,
      });
      // Acme (last seen 03-05) and Initech (03-03) stay; Globex (03-02) is cut.
      const domains = await capped.database.db
        .selectFrom('organisations')
        .select(['id', 'domain'])
        .where('workspace_id', '=', workspace)
        .execute();
      const domainOf = new Map(domains.map((o) => [o.id, o.domain]));
      expect(
        answer.body.data.map((s: { organisation_uuid: string }) =>
          domainOf.get(s.organisation_uuid),
        ),
      ).toEqual(['acme.com', 'initech.com', 'acme.com']);
      // The per-organisation endpoint reaches what the cap cut.
      const globex = domains.find((o) => o.domain === 'globex.com');
      const cut = await call(
        'GET',
        `/v1/workspaces/${workspace}/organisations/${globex?.id}/sessions`,
      );
      expect(cut.body.total).toBe(1);
    } finally {
      await capped.close();
    }
  });
});

describe('GET /v1/workspaces/{ws}/organisations/{org}/sessions', () => {
  it('lists one organisation’s sessions without a date, in the plain envelope', async () => {
    const acme = await t.database.db
      .selectFrom('organisations')
      .select('id')
      .where('workspace_id', '=', ws)
      .where('domain', '=', 'acme.com')
      .executeTakeFirstOrThrow();
    const path = `/v1/workspaces/${ws}/organisations/${acme.id}/sessions`;
    const answer = await api('GET', path);
    expect(answer.status).toBe(200);
    expectShape(answer.body, PAGE_SHAPE);
    expect(answer.body.total).toBe(2);
    expect((await api('GET', `${path}?date=2026-03-05`)).body.total).toBe(1);
    expect((await api('GET', `${path}?url=blog`)).body.total).toBe(1);
    expect((await api('GET', `${path}?date=2026-03-05&date_from=2026-03-01`)).status).toBe(400);
  });

  it('answers 404 for an unknown organisation and for another operator’s workspace', async () => {
    expect(
      (await api('GET', `/v1/workspaces/${ws}/organisations/${randomUUID()}/sessions`)).status,
    ).toBe(404);
    const stranger = client(t.url, (await t.operator()).token);
    expect(
      (await stranger('GET', `/v1/workspaces/${ws}/sessions?date_from=2026-03-01`)).status,
    ).toBe(404);
  });
});
