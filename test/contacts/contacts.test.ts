import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { expectShape, PAGE_SHAPE } from '../helpers/shape.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
let script: string;
const ACME_IP = { 'x-forwarded-for': '81.2.69.160' };
const UNKNOWN_IP = { 'x-forwarded-for': '8.8.4.4' };
const H = 3600_000;
const SITE = 'https://site.example';
const jane = { first: randomUUID(), second: randomUUID() };
const bob = randomUUID();
const ops = randomUUID();
const now = Date.now();

const identify = (email: string, ts: number, traits: Record<string, unknown> = {}) => ({
  type: 'identify',
  ts,
  url: `${SITE}/signup`,
  email,
  traits,
});

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  api = client(t.url, (await t.operator()).token);
  await upsertIpRanges(t.database.db, [
    { network: '81.2.69.0/24', domain: 'acme.com', name: 'Acme' },
  ]);
  const workspace = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  ws = workspace.uuid;
  script = workspace.tracking_script_id;
  const send = collector(t.url);
  const sent = [
    // Jane visits anonymously, identifies later, then again from a second browser.
    await send(
      visit(script, [pageview(`${SITE}/`, now - 50 * H)], { visitor: jane.first }),
      UNKNOWN_IP,
    ),
    await send(
      visit(script, [identify('Jane@Initrode.com', now - 3 * H, { role: 'CTO', seats: 5 })], {
        visitor: jane.first,
      }),
      UNKNOWN_IP,
    ),
    await send(
      visit(script, [identify('jane@initrode.com', now - 2 * H, { plan: 'pro', seats: 8 })], {
        visitor: jane.second,
      }),
      UNKNOWN_IP,
    ),
    // Bob gives a free-mail address in a form, from Acme's network.
    await send(
      visit(
        script,
        [
          {
            type: 'form_submit',
            ts: now - H,
            url: `${SITE}/contact`,
            form_id: 'contact',
            fields: [
              { name: 'email', value: ' Bob@Gmail.com ' },
              { name: 'message', value: 'hello' },
            ],
          },
        ],
        { visitor: bob },
      ),
      ACME_IP,
    ),
    await send(
      visit(script, [identify('ops@sales.globex.com', now - 4 * H)], { visitor: ops }),
      UNKNOWN_IP,
    ),
    // Nobody: an identify call without a valid address, and a form without an email field.
    await send(visit(script, [identify('not-an-email', now)]), UNKNOWN_IP),
  ];
  expect(sent.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202, 202]);
});
afterAll(() => t.close());

const list = (query = '') => api('GET', `/v1/workspaces/${ws}/contacts${query}`);
const organisationOf = async (domain: string) =>
  (
    await t.database.db
      .selectFrom('organisations')
      .select('id')
      .where('workspace_id', '=', ws)
      .where('domain', '=', domain)
      .executeTakeFirstOrThrow()
  ).id;

describe('GET /v1/workspaces/{ws}/contacts', () => {
  it('lists each person once, most recently seen first, with traits, organisation and visitors', async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    expectShape(answer.body, PAGE_SHAPE);
    expect(answer.body.total).toBe(3);
    expect(answer.body.data.map((c: { email: string }) => c.email)).toEqual([
      'bob@gmail.com',
      'jane@initrode.com',
      'ops@sales.globex.com',
    ]);
    const [bobContact, janeContact] = answer.body.data;
    expectShape(janeContact, {
      uuid: 'string',
      email: 'string',
      traits: 'object',
      organisation_uuid: 'string|null',
      visitor_uuids: 'array',
      first_seen: 'string',
      last_seen: 'string',
    });
    expect(janeContact.traits).toEqual({ role: 'CTO', plan: 'pro', seats: 8 });
    expect(janeContact.organisation_uuid).toBe(await organisationOf('initrode.com'));
    expect(janeContact.visitor_uuids).toEqual([jane.first, jane.second].sort());
    // Her first visit was before she identified herself: it counts.
    expect(janeContact.first_seen).toBe(new Date(now - 50 * H).toISOString());
    expect(janeContact.last_seen).toBe(new Date(now - 2 * H).toISOString());
    expect(bobContact.organisation_uuid).toBe(await organisationOf('acme.com'));
    expect(bobContact.traits).toEqual({});
  });

  it('filters by organisation', async () => {
    const initrode = await organisationOf('initrode.com');
    const answer = await list(`?organisation_uuid=${initrode}`);
    expect(answer.body.data.map((c: { email: string }) => c.email)).toEqual(['jane@initrode.com']);
    expect(answer.body.total).toBe(1);
    expect(answer.body.path).toBe(`${t.url}/v1/workspaces/${ws}/contacts`);
    expect(answer.body.first_page_url).toContain(`organisation_uuid=${initrode}`);
  });

  it.each([
    ['acme.com', ['bob@gmail.com']], // the organisation's domain
    ['gmail.com', ['bob@gmail.com']], // the address's domain
    ['GLOBEX.com', ['ops@sales.globex.com']], // a parent of the address's domain, any case
    ['sales.globex.com', ['ops@sales.globex.com']],
    ['lobex.com', []], // not a parent: the match is at a dot
    ['example.org', []],
  ])('filters by domain %s', async (domain, emails) => {
    const answer = await list(`?domain=${domain}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((c: { email: string }) => c.email)).toEqual(emails);
    expect(answer.body.total).toBe(emails.length);
  });

  it('pages with the contract envelope', async () => {
    const second = await list('?page=2&size=1');
    expect(second.body).toMatchObject({
      current_page: 2,
      per_page: 1,
      total: 3,
      last_page: 3,
      from: 2,
      to: 2,
    });
    expect(second.body.data.map((c: { email: string }) => c.email)).toEqual(['jane@initrode.com']);
    expectFieldError(await list('?page=26&size=1000'), 'page');
  });

  it('answers 404 for an unknown organisation and 422 for one that is not a UUID', async () => {
    const unknown = await list(`?organisation_uuid=${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expectFieldError(await list('?organisation_uuid=nope'), 'organisation_uuid');
  });

  it('keeps contacts per workspace', async () => {
    const other = (await api('POST', '/v1/workspaces', { url: 'https://other.example' })).body.data;
    const answer = await api('GET', `/v1/workspaces/${other.uuid}/contacts`);
    expect(answer.body.total).toBe(0);
    expect(answer.body.data).toEqual([]);
  });
});
