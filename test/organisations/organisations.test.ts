import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { ACME, addCompanies } from '../helpers/companies.js';
import { expectShape, PAGE_SHAPE } from '../helpers/shape.js';

const ORGANISATION_SHAPE = {
  uuid: 'string',
  name: 'string',
  website: 'string',
  first_seen: 'string',
  last_seen: 'string',
  profiles: 'array',
  tags: 'array',
  segments: 'array',
  unique_visitor_count: 'integer',
  logo: 'string',
  address: 'object',
  founded: 'string',
  size: 'string',
  industry: 'string',
  phone: 'string',
  email: 'string',
  total_pageviews: 'integer',
  total_time_on_site: 'string',
  visitor_locations: 'array',
  custom_fields: 'object',
  // Footfall's additions to the seed's object.
  identification: 'object',
  total_sessions: 'integer',
  description: 'string',
  profile_source: 'object',
  score: 'integer',
  score_reasons: 'array',
  owner: 'object|null',
  status: 'string',
};
const ADDRESS_SHAPE = Object.fromEntries(
  [
    'street',
    'address',
    'full_address',
    'city',
    'state',
    'street_number',
    'postal_code',
    'country',
    'latitude',
    'longitude',
  ].map((key) => [key, 'string']),
);

const LONDON = '81.2.69.160';
const MOUNTAIN_VIEW = '8.8.8.8';
const T = (iso: string) => Date.parse(iso);

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
let acme: string;
let globex: string;

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  api = client(t.url, (await t.operator()).token);
  await upsertIpRanges(t.database.db, [
    { network: '81.2.69.0/24', domain: 'acme.com', name: 'Acme' },
    { network: '8.8.8.0/24', domain: 'acme.com', name: 'Acme' },
    { network: '1.1.1.0/24', domain: 'globex.com', name: 'Globex' },
  ]);
  await addCompanies(t.database.db, [ACME]);
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body
    .data;
  ws = workspace.uuid;
  const send = collector(t.url);
  const go = (ip: string, visitor: string, events: Record<string, unknown>[]) =>
    send(visit(workspace.tracking_script_id, events, { visitor }), { 'x-forwarded-for': ip });
  const [jane, john, gina] = [randomUUID(), randomUUID(), randomUUID()];
  // Acme: Jane in London, two sessions; John in Mountain View, one session.
  await go(LONDON, jane, [
    pageview('https://site.example/', T('2026-04-01T10:00:00Z')),
    pageview('https://site.example/pricing', T('2026-04-01T10:02:00Z')),
    {
      type: 'page_leave',
      ts: T('2026-04-01T10:05:30Z'),
      url: 'https://site.example/pricing',
      time_on_page: 210,
    },
  ]);
  await go(LONDON, jane, [pageview('https://site.example/blog', T('2026-04-03T09:00:00Z'))]);
  await go(MOUNTAIN_VIEW, john, [
    pageview('https://site.example/', T('2026-04-02T16:00:00Z')),
    pageview('https://site.example/jobs', T('2026-04-02T17:00:00Z') - 50 * 60_000),
  ]);
  await go('1.1.1.1', gina, [pageview('https://site.example/', T('2026-05-10T12:00:00Z'))]);
  const orgs = await t.database.db
    .selectFrom('organisations')
    .select(['id', 'domain'])
    .where('workspace_id', '=', ws)
    .execute();
  acme = orgs.find((o) => o.domain === 'acme.com')?.id as string;
  globex = orgs.find((o) => o.domain === 'globex.com')?.id as string;
});
afterAll(() => t.close());

const path = (org: string, rest = '') => `/v1/workspaces/${ws}/organisations/${org}${rest}`;

describe('GET .../organisations/{org}', () => {
  it('has every seed field with its JSON type', async () => {
    const answer = await api('GET', path(acme));
    expect(answer.status).toBe(200);
    expectShape(answer.body, { success: 'boolean', data: 'object' });
    expectShape(answer.body.data, ORGANISATION_SHAPE);
    expectShape(answer.body.data.address, ADDRESS_SHAPE);
    for (const profile of answer.body.data.profiles)
      expectShape(profile, { name: 'string', handle: 'string', url: 'string' });
    expectShape(answer.body.data.profile_source, {
      directory: 'boolean',
      website: 'string|null',
      fetched_at: 'string|null',
    });
  });

  it('shows the directory profile', async () => {
    const { data } = (await api('GET', path(acme))).body;
    expect(data).toMatchObject({
      uuid: acme,
      name: 'Acme Corporation',
      website: 'https://www.acme.com',
      logo: 'https://logo.example/acme.png',
      founded: '1947',
      size: '201-500',
      industry: 'Software',
      phone: '+44 20 7946 0000',
      email: 'hello@acme.com',
      profiles: [{ name: 'linkedin', handle: 'acme', url: 'https://linkedin.com/company/acme' }],
      tags: [],
      segments: [],
      custom_fields: {},
      description: '',
      profile_source: { directory: true, website: null, fetched_at: null },
    });
    expect(data.address).toEqual({
      street: 'Baker Street',
      address: '',
      full_address: '',
      city: 'London',
      state: '',
      street_number: '',
      postal_code: '',
      country: 'GB',
      latitude: '51.5',
      longitude: '',
    });
  });

  it('derives its figures from its sessions (a hand-computed fixture)', async () => {
    const { data } = (await api('GET', path(acme))).body;
    // Sessions: 10:00:00–10:05:30 (330 s), 2026-04-03 09:00 (0 s), 16:00–16:10 (600 s).
    expect(data).toMatchObject({
      unique_visitor_count: 2,
      total_pageviews: 5,
      total_time_on_site: '0:15:30',
      first_seen: '2026-04-01T10:00:00.000Z',
      last_seen: '2026-04-03T09:00:00.000Z',
      visitor_locations: ['London, United Kingdom', 'Mountain View, United States'],
    });
  });

  it('gives an organisation without a profile its known name and website, and "" elsewhere', async () => {
    const { data } = (await api('GET', path(globex))).body;
    expect(data).toMatchObject({
      name: 'Globex',
      website: 'https://globex.com',
      logo: '',
      industry: '',
      profiles: [],
    });
  });

  it('answers 404 for an unknown organisation and another operator’s', async () => {
    expect((await api('GET', path(randomUUID()))).status).toBe(404);
    const stranger = client(t.url, (await t.operator()).token);
    expect((await stranger('GET', path(acme))).status).toBe(404);
  });
});

describe('organisation tags', () => {
  it('adds a tag (to available_tags too), removes it, and answers 404 for one it does not carry', async () => {
    const added = await api('POST', path(globex, '/tags'), { tag_name: ' Prospect ' });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ success: true, message: 'Tag added.' });
    expect((await api('GET', path(globex))).body.data.tags).toEqual(['Prospect']);
    expect((await api('GET', `/v1/workspaces/${ws}`)).body.data.available_tags).toContain(
      'Prospect',
    );
    const removed = await api('DELETE', path(globex, '/tags'), { tag_name: 'prospect' });
    expect(removed.body).toEqual({ success: true, message: 'Tag removed.' });
    expect((await api('GET', path(globex))).body.data.tags).toEqual([]);
    const missing = await api('DELETE', path(globex, '/tags'), { tag_name: 'prospect' });
    expect(missing.status).toBe(404);
    expectFieldError(await api('POST', path(globex, '/tags'), { tag_name: '  ' }), 'tag_name');
  });
});

describe('custom-field values', () => {
  const define = (body: Record<string, unknown>) =>
    api('POST', `/v1/workspaces/${ws}/custom-fields`, body);
  const put = (key: string, value: unknown) =>
    api('PUT', path(acme, `/custom-fields/${key}`), { value });

  it.each([
    ['text', {}, 'Key account', 42],
    ['number', { field_rules: [{ type: 'min', config: { value: 0 } }] }, 12.5, -1],
    ['date', {}, '2026-11-20', '20/11/2026'],
    ['boolean', {}, true, 'yes'],
    ['select', { options: [{ key: 'gold', label: 'Gold', color: '#d4af37' }] }, 'gold', 'silver'],
    [
      'multi_select',
      {
        options: [
          { key: 'a', label: 'A', color: '#000' },
          { key: 'b', label: 'B', color: '#fff' },
        ],
      },
      ['a', 'b'],
      ['a', 'a'],
    ],
    ['url', {}, 'https://acme.com/about', 'acme dot com'],
    ['email', {}, 'cfo@acme.com', 'cfo-at-acme'],
  ])('accepts a good %s value and refuses a bad one', async (type, extra, good, bad) => {
    const key = `v_${type}`;
    expect((await define({ key, name: type, type, ...extra })).status).toBe(201);
    const accepted = await put(key, good);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ field_key: key, field_type: type, value: good });
    expectFieldError(await put(key, bad), 'value');
    expect((await api('GET', path(acme))).body.data.custom_fields[key]).toEqual(good);
  });

  it('applies rules, clears values, and refuses to clear a required one', async () => {
    await define({
      key: 'code',
      name: 'Code',
      type: 'text',
      field_rules: [{ type: 'pattern', config: { value: '^[A-Z]{3}$' } }],
    });
    expectFieldError(await put('code', 'abcd'), 'value');
    expect((await put('code', 'ACM')).status).toBe(200);
    const cleared = await api('DELETE', path(acme, '/custom-fields/code'));
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.custom_fields.code).toBeUndefined();
    await define({
      key: 'owner',
      name: 'Owner',
      type: 'text',
      field_rules: [{ type: 'required', config: {} }],
    });
    expectFieldError(await put('owner', ''), 'value');
    expect((await put('owner', 'Jane')).status).toBe(200);
    expectFieldError(await api('DELETE', path(acme, '/custom-fields/owner')), 'value');
    expect((await put('nope', 'x')).status).toBe(404);
  });
});

describe('GET .../organisations', () => {
  const list = (query = '') => api('GET', `/v1/workspaces/${ws}/organisations?${query}`);

  it('pages organisations, most recently active first', async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    expectShape(answer.body, PAGE_SHAPE);
    expect(answer.body.data.map((o: { uuid: string }) => o.uuid)).toEqual([globex, acme]);
    for (const organisation of answer.body.data) expectShape(organisation, ORGANISATION_SHAPE);
  });

  it('filters by name, date range and segment', async () => {
    expect((await list('name=corpor')).body.data.map((o: { uuid: string }) => o.uuid)).toEqual([
      acme,
    ]);
    expect(
      (await list('date_from=2026-04-01&date_to=2026-04-30')).body.data.map(
        (o: { uuid: string }) => o.uuid,
      ),
    ).toEqual([acme]);
    expect((await list('date_from=2026-05-01')).body.total).toBe(1);
    const segment = randomUUID();
    await t.database.db
      .insertInto('segments')
      .values({ workspace_id: ws, id: segment, name: 'Key', filters: '{}' })
      .execute();
    await t.database.db
      .insertInto('segment_members')
      .values({ workspace_id: ws, segment_id: segment, organisation_id: globex })
      .execute();
    const members = await list(`segmentUuid=${segment}`);
    expect(members.body.data.map((o: { uuid: string }) => o.uuid)).toEqual([globex]);
    expect(members.body.data[0].segments).toEqual([{ uuid: segment, name: 'Key' }]);
    expect((await list(`segmentUuid=${randomUUID()}`)).status).toBe(404);
    expectFieldError(await list('date_from=April'), 'date_from');
    expectFieldError(await list('page=26&size=1000'), 'page');
  });

  it('narrows to the organisations named by uuid, in no other workspace', async () => {
    const uuids = (answer: { body: { data: { uuid: string }[] } }) =>
      answer.body.data.map((o) => o.uuid);
    expect(uuids(await list(`uuid=${acme}`))).toEqual([acme]);
    expect(uuids(await list(`uuid=${acme}&uuid=${globex}&uuid=${randomUUID()}`))).toEqual([
      globex,
      acme,
    ]);
    // Another operator's organisation is not theirs to name.
    const other = client(t.url, (await t.operator()).token);
    const theirs = (await other('POST', '/v1/workspaces', { url: 'https://other.example' })).body
      .data.uuid;
    const foreign = await other('GET', `/v1/workspaces/${theirs}/organisations?uuid=${acme}`);
    expect(foreign.status).toBe(200);
    expect(foreign.body.total).toBe(0);
    // Not a UUID: matches nothing, as an unknown one does.
    expect((await list('uuid=acme')).body).toMatchObject({ total: 0, data: [] });
    const many = Array.from({ length: 101 }, () => `uuid=${randomUUID()}`).join('&');
    expectFieldError(await list(many), 'uuid');
  });
});
