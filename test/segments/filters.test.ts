import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { addCompanies } from '../helpers/companies.js';

// Every comparison on every kind of field, run both ways a client can: as an ad hoc search
// (POST .../organisations) and as a saved segment's members (GET .../organisations?segmentUuid).
// Three organisations with known profiles, activity, tags and custom-field values:
//   acme     Acme Corporation, Software, 201-500, GB; 2 sessions (2026-04-01 330 s, 2026-04-03),
//            3 page views (/, /pricing, /blog), referrer google; tags Enterprise, Hot lead;
//            plan Gold, tier a, seats 250, renewal 2026-12-01, active true, regions emea+apac
//   globex   Globex Inc, Manufacturing, 5001+, US; 1 session (2026-05-10, 0 s), 1 view (/);
//            tag Partner; seats 10, renewal 2025-01-15, active false, regions amer
//   initech  no directory profile (named by its domain); 1 session an hour ago, 60 s,
//            2 views (/?utm_source=LinkedIn_Ads, /jobs), referrer linkedin; nothing else
// Sessions' sources: acme google.com and direct, globex direct, initech linkedin_ads.

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
const domainOf = new Map<string, string>();

const T = (iso: string) => Date.parse(iso);

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body
    .data;
  ws = workspace.uuid;
  await addCompanies(t.database.db, [
    {
      domain: 'acme.com',
      name: 'Acme Corporation',
      industry: 'Software',
      size: '201-500',
      address: { country: 'GB' },
    },
    {
      domain: 'globex.com',
      name: 'Globex Inc',
      industry: 'Manufacturing',
      size: '5001+',
      address: { country: 'US' },
    },
  ]);
  const send = collector(t.url);
  const go = (events: Record<string, unknown>[], visitor: string) =>
    send(visit(workspace.tracking_script_id, events, { visitor }));
  const identify = (email: string, ts: number) => ({
    type: 'identify',
    ts,
    url: 'https://site.example/',
    email,
  });
  const [jane, gina, ian] = [randomUUID(), randomUUID(), randomUUID()];
  await go(
    [
      identify('jane@acme.com', T('2026-04-01T10:00:00Z')),
      pageview('https://site.example/', T('2026-04-01T10:00:00Z'), 'https://www.google.com/'),
      pageview('https://site.example/pricing', T('2026-04-01T10:02:00Z')),
      {
        type: 'page_leave',
        ts: T('2026-04-01T10:05:30Z'),
        url: 'https://site.example/pricing',
        time_on_page: 210,
      },
    ],
    jane,
  );
  await go([pageview('https://site.example/blog', T('2026-04-03T09:00:00Z'))], jane);
  await go(
    [
      identify('gina@globex.com', T('2026-05-10T12:00:00Z')),
      pageview('https://site.example/', T('2026-05-10T12:00:00Z')),
    ],
    gina,
  );
  const hourAgo = Date.now() - 3_600_000;
  await go(
    [
      identify('ian@initech.com', hourAgo),
      pageview(
        'https://site.example/?utm_source=LinkedIn_Ads',
        hourAgo,
        'https://www.linkedin.com/',
      ),
      pageview('https://site.example/jobs', hourAgo + 60_000),
    ],
    ian,
  );
  const orgs = await t.database.db
    .selectFrom('organisations')
    .select(['id', 'domain'])
    .where('workspace_id', '=', ws)
    .execute();
  for (const org of orgs) domainOf.set(org.id, org.domain.replace('.com', ''));
  const id = (name: string) => orgs.find((o) => o.domain === `${name}.com`)?.id as string;
  expect(orgs).toHaveLength(3);

  const option = (key: string) => ({ key, label: key.toUpperCase(), color: '#336699' });
  for (const field of [
    { key: 'plan', name: 'Plan', type: 'text' },
    { key: 'tier', name: 'Tier', type: 'select', options: [option('a'), option('b')] },
    { key: 'seats', name: 'Seats', type: 'number' },
    { key: 'renewal', name: 'Renewal', type: 'date' },
    { key: 'active', name: 'Active', type: 'boolean' },
    {
      key: 'regions',
      name: 'Regions',
      type: 'multi_select',
      options: [option('emea'), option('apac'), option('amer')],
    },
  ]) {
    expect((await api('POST', `/v1/workspaces/${ws}/custom-fields`, field)).status).toBe(201);
  }
  const set = async (org: string, key: string, value: unknown) =>
    expect(
      (
        await api('PUT', `/v1/workspaces/${ws}/organisations/${id(org)}/custom-fields/${key}`, {
          value,
        })
      ).status,
    ).toBe(200);
  await set('acme', 'plan', 'Gold');
  await set('acme', 'tier', 'a');
  await set('acme', 'seats', 250);
  await set('acme', 'renewal', '2026-12-01');
  await set('acme', 'active', true);
  await set('acme', 'regions', ['emea', 'apac']);
  await set('globex', 'seats', 10);
  await set('globex', 'renewal', '2025-01-15');
  await set('globex', 'active', false);
  await set('globex', 'regions', ['amer']);
  const tag = async (org: string, name: string) =>
    expect(
      (await api('POST', `/v1/workspaces/${ws}/organisations/${id(org)}/tags`, { tag_name: name }))
        .status,
    ).toBe(200);
  await tag('acme', 'Enterprise');
  await tag('acme', 'Hot lead');
  await tag('globex', 'Partner');
});
afterAll(() => t.close());

type Filters = { operator: string; conditions: unknown[] };
const names = (data: { uuid: string }[]) =>
  data.map((organisation) => domainOf.get(organisation.uuid) as string).sort();

/** The organisations matching, found ad hoc and as a saved segment's members (both must agree). */
async function matching(filters: Filters): Promise<string[]> {
  const adHoc = await api('POST', `/v1/workspaces/${ws}/organisations?size=100`, { filters });
  expect(adHoc.status, JSON.stringify(adHoc.body)).toBe(200);
  const saved = await api('POST', `/v1/workspaces/${ws}/segments`, { name: 'case', filters });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  const members = await api(
    'GET',
    `/v1/workspaces/${ws}/organisations?size=100&segmentUuid=${saved.body.uuid}`,
  );
  await api('DELETE', `/v1/workspaces/${ws}/segments/${saved.body.uuid}`);
  expect(names(members.body.data)).toEqual(names(adHoc.body.data));
  expect(adHoc.body.total).toBe(adHoc.body.data.length);
  return names(adHoc.body.data);
}

const one = (field: string, comparison: string, value?: unknown, unit?: string) => ({
  operator: 'AND',
  conditions: [{ field, comparison, ...(value !== undefined && { value }), ...(unit && { unit }) }],
});

type Case = [string, string, unknown, string[], string?];
const check = (cases: Case[]) =>
  it.each(cases)('%s %s %j', async (field, comparison, value, expected, unit) => {
    expect(await matching(one(field, comparison, value ?? undefined, unit))).toEqual(expected);
  });

describe('text fields (profile, domain, custom text and select)', () => {
  check([
    ['name', 'equal', 'acme corporation', ['acme']],
    ['name', 'not_equal', 'Acme Corporation', ['globex', 'initech']],
    ['name', 'contains', 'CORP', ['acme']],
    ['name', 'not_contains', 'corp', ['globex', 'initech']],
    ['name', 'starts_with', 'glo', ['globex']],
    ['name', 'ends_with', 'tech.com', ['initech']],
    ['name', 'contains', '%', []],
    ['name', 'doesnt_start_with', 'ACME', ['globex', 'initech']],
    ['name', 'doesnt_start_with', 'zz', ['acme', 'globex', 'initech']],
    ['name', 'doesnt_end_with', ' inc', ['acme', 'initech']],
    ['name', 'doesnt_end_with', '.com', ['acme', 'globex']],
    ['industry', 'doesnt_start_with', 'soft', ['globex', 'initech']],
    ['industry', 'in', ['software', 'Retail'], ['acme']],
    ['industry', 'not_in', ['Software'], ['globex', 'initech']],
    ['industry', 'set', null, ['acme', 'globex']],
    ['industry', 'not_set', null, ['initech']],
    ['size', 'equal', '5001+', ['globex']],
    ['country', 'equal', 'us', ['globex']],
    ['country', 'in', ['GB', 'US'], ['acme', 'globex']],
    ['domain', 'ends_with', 'ech.com', ['initech']],
    ['plan', 'equal', 'gold', ['acme']],
    ['plan', 'contains', 'ol', ['acme']],
    ['plan', 'not_set', null, ['globex', 'initech']],
    ['tier', 'in', ['a', 'b'], ['acme']],
    ['tier', 'not_equal', 'a', ['globex', 'initech']],
  ]);
});

describe('number fields (activity figures and custom numbers)', () => {
  check([
    ['sessions', 'greater_than', 1, ['acme']],
    ['sessions', 'equal', 1, ['globex', 'initech']],
    ['sessions', 'not_equal', 1, ['acme']],
    ['sessions', 'less_than', 2, ['globex', 'initech']],
    ['sessions', 'in', [2, 5], ['acme']],
    ['sessions', 'not_in', [2], ['globex', 'initech']],
    ['pageviews', 'greater_than', 2, ['acme']],
    ['pageviews', 'equal', 2, ['initech']],
    ['time_on_site', 'greater_than', 60, ['acme']],
    ['time_on_site', 'equal', 60, ['initech']],
    ['time_on_site', 'less_than', 0.5, ['globex']],
    ['seats', 'greater_than', 100, ['acme']],
    ['seats', 'less_than', 100, ['globex']],
    ['seats', 'in', [10, 20], ['globex']],
    ['sessions', 'greater_than_or_equal', 2, ['acme']],
    ['sessions', 'greater_than_or_equal', 3, []],
    ['sessions', 'less_than_or_equal', 1, ['globex', 'initech']],
    ['sessions', 'less_than_or_equal', 0, []],
    ['pageviews', 'between', [2, 3], ['acme', 'initech']],
    ['pageviews', 'between', [4, 9], []],
    ['pageviews', 'not_between', [2, 3], ['globex']],
    ['time_on_site', 'between', [60, 60], ['initech']],
    ['time_on_site', 'between', [0.5, 59.5], []],
    ['seats', 'greater_than_or_equal', 250, ['acme']],
    ['seats', 'less_than_or_equal', 10, ['globex']],
    ['seats', 'between', [10, 250], ['acme', 'globex']],
    ['seats', 'between', [11, 249], []],
    ['seats', 'not_between', [11, 300], ['globex', 'initech']],
    ['seats', 'set', null, ['acme', 'globex']],
    ['seats', 'not_set', null, ['initech']],
  ]);
});

describe('date fields (first and last seen, custom dates)', () => {
  check([
    ['first_seen', 'equal', '2026-04-01', ['acme']],
    ['first_seen', 'greater_than', '2026-04-01', ['globex', 'initech']],
    ['first_seen', 'less_than', '2026-04-02', ['acme']],
    ['last_seen', 'equal', '2026-04-03', ['acme']],
    ['last_seen', 'not_equal', '2026-04-03', ['globex', 'initech']],
    ['last_seen', 'less_than_x_units_ago', 1, ['initech'], 'days'],
    ['last_seen', 'less_than_x_units_ago', 2, ['initech'], 'hours'],
    ['last_seen', 'less_than_x_units_ago', 30, [], 'minutes'],
    ['last_seen', 'more_than_x_units_ago', 1, ['acme', 'globex'], 'days'],
    ['last_seen', 'more_than_x_units_ago', 1, ['acme', 'globex']],
    ['first_seen', 'less_than_x_units_ago', 1, ['initech'], 'weeks'],
    ['first_seen', 'less_than_x_units_ago', 100, ['acme', 'globex', 'initech'], 'years'],
    ['renewal', 'equal', '2026-12-01', ['acme']],
    ['renewal', 'less_than', '2026-01-01', ['globex']],
    ['renewal', 'more_than_x_units_ago', 6, ['globex'], 'months'],
    ['renewal', 'set', null, ['acme', 'globex']],
    ['first_seen', 'greater_than_or_equal', '2026-04-01', ['acme', 'globex', 'initech']],
    ['first_seen', 'greater_than_or_equal', '2026-04-02', ['globex', 'initech']],
    ['last_seen', 'less_than_or_equal', '2026-04-03', ['acme']],
    ['last_seen', 'less_than_or_equal', '2026-04-02', []],
    ['first_seen', 'between', ['2026-04-01', '2026-05-10'], ['acme', 'globex']],
    ['first_seen', 'between', ['2026-04-02', '2026-05-09'], []],
    ['first_seen', 'not_between', ['2026-04-01', '2026-05-09'], ['globex', 'initech']],
    ['renewal', 'between', ['2025-01-15', '2025-01-15'], ['globex']],
    ['renewal', 'not_between', ['2025-01-01', '2025-12-31'], ['acme', 'initech']],
    ['renewal', 'greater_than_or_equal', '2026-12-01', ['acme']],
    ['renewal', 'less_than_or_equal', '2025-01-14', []],
    ['first_seen', 'in', ['2026-05-10', '2020-01-01'], ['globex']],
    ['renewal', 'in', ['2026-12-01'], ['acme']],
    ['renewal', 'not_in', ['2026-12-01'], ['globex', 'initech']],
    // Units in the singular as well as the plural (contract §13).
    ['last_seen', 'less_than_x_units_ago', 1, ['initech'], 'day'],
    ['last_seen', 'less_than_x_units_ago', 7200, ['initech'], 'second'],
    ['last_seen', 'less_than_x_units_ago', 7200, ['initech'], 'seconds'],
    ['last_seen', 'less_than_x_units_ago', 30, [], 'minute'],
    ['last_seen', 'less_than_x_units_ago', 2, ['initech'], 'hour'],
    ['last_seen', 'more_than_x_units_ago', 1, ['acme', 'globex'], 'week'],
    ['renewal', 'more_than_x_units_ago', 6, ['globex'], 'month'],
    ['first_seen', 'less_than_x_units_ago', 100, ['acme', 'globex', 'initech'], 'year'],
    ['renewal', 'not_set', null, ['initech']],
  ]);
});

describe('boolean fields', () => {
  check([
    ['active', 'is_true', null, ['acme']],
    ['active', 'is_false', null, ['globex']],
    ['active', 'set', null, ['acme', 'globex']],
    ['active', 'not_set', null, ['initech']],
  ]);
});

describe('several values per organisation: tags, visited URLs, referrers, multi-select', () => {
  check([
    ['tag', 'equal', 'enterprise', ['acme']],
    ['tag', 'not_equal', 'Enterprise', ['globex', 'initech']],
    ['tag', 'contains', 'LEAD', ['acme']],
    ['tag', 'not_contains', 'lead', ['globex', 'initech']],
    ['tag', 'starts_with', 'hot', ['acme']],
    ['tag', 'ends_with', 'ner', ['globex']],
    ['tag', 'in', ['Partner', 'Nobody'], ['globex']],
    ['tag', 'not_in', ['Partner'], ['acme', 'initech']],
    ['tag', 'set', null, ['acme', 'globex']],
    ['tag', 'not_set', null, ['initech']],
    ['url', 'contains', '/pricing', ['acme']],
    ['url', 'not_contains', '/pricing', ['globex', 'initech']],
    ['url', 'ends_with', '/jobs', ['initech']],
    ['url', 'equal', 'https://site.example/blog', ['acme']],
    ['referrer', 'contains', 'google', ['acme']],
    ['referrer', 'set', null, ['acme', 'initech']],
    ['referrer', 'not_set', null, ['globex']],
    ['referrer', 'doesnt_end_with', 'linkedin.com/', ['acme', 'globex']],
    ['tag', 'doesnt_start_with', 'hot', ['globex', 'initech']],
    ['tag', 'doesnt_end_with', 'NER', ['acme', 'initech']],
    ['url', 'doesnt_start_with', 'https://site.example/pri', ['globex', 'initech']],
    // Source: any of the organisation's sessions has it.
    ['source', 'equal', 'Google.com', ['acme']],
    ['source', 'equal', 'direct', ['acme', 'globex']],
    ['source', 'not_equal', 'direct', ['initech']],
    ['source', 'in', ['linkedin_ads', 'bing.com'], ['initech']],
    ['source', 'not_in', ['direct'], ['initech']],
    ['source', 'contains', '_AD', ['initech']],
    ['source', 'not_contains', 'o', ['globex', 'initech']],
    ['source', 'starts_with', 'LinkedIn', ['initech']],
    ['source', 'starts_with', 'linkedin.', []],
    ['source', 'doesnt_start_with', 'goo', ['globex', 'initech']],
    ['source', 'ends_with', '.com', ['acme']],
    ['source', 'doesnt_end_with', '.com', ['globex', 'initech']],
    ['regions', 'equal', 'emea', ['acme']],
    ['regions', 'in', ['amer'], ['globex']],
    ['regions', 'not_in', ['emea'], ['globex', 'initech']],
    ['regions', 'set', null, ['acme', 'globex']],
    ['regions', 'not_set', null, ['initech']],
  ]);
});

describe('units', () => {
  it('saves a singular unit spelled out in the plural, and the segment keeps working', async () => {
    const filters = one('last_seen', 'less_than_x_units_ago', 1, 'day');
    const saved = await api('POST', `/v1/workspaces/${ws}/segments`, { name: 'today', filters });
    expect(saved.status).toBe(201);
    expect(saved.body.filters.conditions).toEqual([
      { field: 'last_seen', comparison: 'less_than_x_units_ago', value: 1, unit: 'days' },
    ]);
    const members = await api(
      'GET',
      `/v1/workspaces/${ws}/organisations?segmentUuid=${saved.body.uuid}`,
    );
    expect(names(members.body.data)).toEqual(['initech']);
    const shown = await api('GET', `/v1/workspaces/${ws}/segments/${saved.body.uuid}`);
    expect(shown.body.filters).toEqual(saved.body.filters);
    await api('DELETE', `/v1/workspaces/${ws}/segments/${saved.body.uuid}`);
  });
});

describe('groups', () => {
  const condition = (field: string, comparison: string, value?: unknown) => ({
    field,
    comparison,
    ...(value !== undefined && { value }),
  });

  it('joins conditions with AND and with OR', async () => {
    expect(
      await matching({
        operator: 'AND',
        conditions: [condition('sessions', 'equal', 1), condition('referrer', 'set')],
      }),
    ).toEqual(['initech']);
    expect(
      await matching({
        operator: 'OR',
        conditions: [
          condition('industry', 'equal', 'Software'),
          condition('tag', 'equal', 'Partner'),
        ],
      }),
    ).toEqual(['acme', 'globex']);
  });

  it('nests groups in groups', async () => {
    expect(
      await matching({
        operator: 'OR',
        conditions: [
          condition('industry', 'equal', 'Software'),
          {
            operator: 'AND',
            conditions: [condition('tag', 'equal', 'Partner'), condition('sessions', 'equal', 1)],
          },
        ],
      }),
    ).toEqual(['acme', 'globex']);
    expect(
      await matching({
        operator: 'AND',
        conditions: [
          condition('sessions', 'less_than', 2),
          {
            operator: 'OR',
            conditions: [
              condition('country', 'equal', 'GB'),
              {
                operator: 'AND',
                conditions: [
                  condition('industry', 'not_set'),
                  condition('url', 'contains', 'jobs'),
                ],
              },
            ],
          },
        ],
      }),
    ).toEqual(['initech']);
  });

  it('answers a page with the list envelope and page links', async () => {
    const answer = await api('POST', `/v1/workspaces/${ws}/organisations?page=2&size=1`, {
      filters: one('sessions', 'greater_than', 0),
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ current_page: 2, per_page: 1, total: 3, last_page: 3 });
    expect(answer.body.data).toHaveLength(1);
    expect(answer.body.next_page_url).toContain('page=3');
  });
});
