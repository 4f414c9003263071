import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  client,
  expectFieldError,
  startTestApp,
  type TestApp,
} from '../helpers/app.js';
import { collector, visit } from '../helpers/collect.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
let script: string;
let organisation: string;

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://acme-site.com' })).body
    .data;
  ws = workspace.uuid;
  script = workspace.tracking_script_id;
  organisation = randomUUID();
  await t.database.db
    .insertInto('organisations')
    .values({ workspace_id: ws, id: organisation, domain: 'acme.com', name: 'Acme' })
    .execute();
  for (const [key, type] of [
    ['renewal', 'date'],
    ['notes', 'text'],
    ['employees', 'number'],
  ]) {
    expect(
      (await api('POST', `/v1/workspaces/${ws}/custom-fields`, { key, name: key, type })).status,
    ).toBe(201);
  }
});
afterAll(() => t.close());

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

describe('text PostgreSQL cannot store, in the API', () => {
  it('is a 422 naming the field, for NUL and for an unpaired surrogate, at any depth', async () => {
    for (const bad of ['Acme\u0000', 'Acme\ud800', '\udc00Acme']) {
      expectFieldError(
        await api('POST', '/v1/workspaces', { url: 'https://a.example', name: bad }),
        'name',
        true,
      );
      expectFieldError(
        await api('POST', `/v1/workspaces/${ws}/custom-fields`, {
          key: 'tier',
          name: 'Tier',
          type: 'select',
          options: [{ key: 'gold', label: bad, color: '#abc' }],
        }),
        'options.0.label',
        true,
      );
      expectFieldError(
        await api('POST', `/v1/workspaces/${ws}/organisations/${organisation}/tags`, {
          tag_name: bad,
        }),
        'tag_name',
        true,
      );
      expectFieldError(
        await api('PUT', `/v1/workspaces/${ws}/organisations/${organisation}/custom-fields/notes`, {
          value: bad,
        }),
        'value',
        true,
      );
    }
    // Nothing was made of any of it.
    const fields = await api('GET', `/v1/workspaces/${ws}/custom-fields`);
    expect(fields.body.data.map((field: { key: string }) => field.key)).not.toContain('tier');
  });

  it('names a key that cannot be stored, as well as a value', async () => {
    const answer = await api('POST', `/v1/workspaces/${ws}/custom-fields`, {
      key: 'limit',
      name: 'Limit',
      type: 'number',
      field_rules: [{ type: 'max', config: { 'value\u0000': 3 } }],
    });
    expectFieldError(answer, 'field_rules.0.config.value\u0000', true);
  });

  it('is a 422 in a query string, and a 404 in a path, which then names nothing', async () => {
    expectFieldError(
      await api('GET', `/v1/workspaces/${ws}/sessions?date=2026-01-01&url=a%00b`),
      'url',
      true,
    );
    expectFieldError(await api('GET', `/v1/workspaces/${ws}/organisations?name=%00`), 'name', true);
    expectFieldError(
      await api('GET', `/v1/workspaces/${ws}/contacts?domain=acme%00.com`),
      'domain',
      true,
    );
    for (const [method, path] of [
      ['GET', `/v1/workspaces/${ws}/custom-fields/not%00es`],
      ['DELETE', `/v1/workspaces/${ws}/organisations/${organisation}/custom-fields/a%00b`],
      ['GET', '/spotter/v1/a%00b'],
    ] as const) {
      const answer = await api(method, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).toEqual({ success: false, message: expect.any(String) });
    }
  });

  it('refuses any query value over 2,048 characters with 422, whatever its schema says', async () => {
    // segmentUuid has no length of its own in the schema: the bound is the edge's.
    const long = 'f'.repeat(3000);
    expectFieldError(
      await api('GET', `/v1/workspaces/${ws}/sessions?date=2026-01-01&segmentUuid=${long}`),
      'segmentUuid',
      true,
    );
    expectFieldError(
      await api('GET', `/v1/workspaces/${ws}/organisations?segmentUuid=${long}`),
      'segmentUuid',
      true,
    );
  });
});

describe('nesting', () => {
  it('is bounded before anything recurses: 5,000 levels is a 422, not a stack overflow', async () => {
    const answer = await api(
      'PUT',
      `/v1/workspaces/${ws}/organisations/${organisation}/custom-fields/notes`,
      `{"value":${nested(5_000)}}`,
    );
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)[0]).toMatch(/^value(\.0)+$/);
    expect(answer.body.message).toMatch(/nest/);
    // A filter (groups in groups) of ordinary depth still passes the bound.
    const ok = await api('POST', `/v1/workspaces/${ws}/organisations`, {
      filters: {
        operator: 'AND',
        conditions: [
          {
            operator: 'OR',
            conditions: [
              {
                operator: 'AND',
                conditions: [
                  { operator: 'OR', conditions: [{ field: 'name', comparison: 'set' }] },
                ],
              },
            ],
          },
        ],
      },
    });
    expect(ok.status).toBe(200);
  });
});

describe('days', () => {
  const sessions = (query: string) => api('GET', `/v1/workspaces/${ws}/sessions?${query}`);

  it('are 0001-01-01 to 9999-12-31 in session lists; others are 422', async () => {
    expectFieldError(await sessions('date=0000-01-01'), 'date', true);
    expectFieldError(await sessions('date=10000-01-01'), 'date', true);
    expectFieldError(await sessions('date_from=0000-12-31'), 'date_from', true);
    expectFieldError(await sessions('date_from=2026-01-01&date_to=10000-01-01'), 'date_to', true);
    expectFieldError(
      await api('GET', `/v1/workspaces/${ws}/organisations?date_from=0000-01-01`),
      'date_from',
      true,
    );
    expectFieldError(
      await api(
        'GET',
        `/v1/workspaces/${ws}/organisations/${organisation}/sessions?date=0000-01-01`,
      ),
      'date',
      true,
    );
    for (const query of [
      'date=0001-01-01',
      'date=9999-12-31',
      'date_from=0001-01-01&date_to=9999-12-31',
    ]) {
      const answer = await sessions(query);
      expect(answer.status, query).toBe(200);
      expect(answer.body.total).toBe(0);
    }
    expect((await api('GET', `/v1/workspaces/${ws}/organisations?date_to=9999-12-31`)).status).toBe(
      200,
    );
  });

  it('are the same range in custom-field values and segment filters', async () => {
    const value = (day: string) =>
      api('PUT', `/v1/workspaces/${ws}/organisations/${organisation}/custom-fields/renewal`, {
        value: day,
      });
    expectFieldError(await value('0000-06-01'), 'value', true);
    expectFieldError(await value('10000-06-01'), 'value', true);
    expect((await value('9999-12-31')).status).toBe(200);
    const filter = (comparison: string, day: string) =>
      api('POST', `/v1/workspaces/${ws}/organisations`, {
        filters: { operator: 'AND', conditions: [{ field: 'renewal', comparison, value: day }] },
      });
    expectFieldError(await filter('equal', '0000-01-01'), 'filters.conditions.0.value', true);
    expectFieldError(await filter('less_than', '10000-01-01'), 'filters.conditions.0.value', true);
    // The last day there is, on both sides of a comparison that adds a day to it.
    for (const comparison of ['equal', 'greater_than', 'not_equal']) {
      const answer = await filter(comparison, '9999-12-31');
      expect(answer.status, comparison).toBe(200);
    }
    const found = await filter('equal', '9999-12-31');
    expect(found.body.data.map((row: { uuid: string }) => row.uuid)).toEqual([organisation]);
  });
});

describe('numbers', () => {
  it('beyond what their column holds are 422', async () => {
    expectFieldError(
      await api('PATCH', `/v1/workspaces/${ws}`, { usage_limit: 1e308 }),
      'usage_limit',
      true,
    );
    expectFieldError(
      await api('PATCH', `/v1/workspaces/${ws}`, { usage_limit: -1 }),
      'usage_limit',
      true,
    );
    expectFieldError(await api('GET', `/v1/workspaces?page=1e308`), 'page', true);
    expectFieldError(await api('GET', `/v1/workspaces?size=-1`), 'size', true);
    const amount = (value: number) =>
      api('POST', `/v1/workspaces/${ws}/organisations`, {
        filters: {
          operator: 'AND',
          conditions: [
            { field: 'last_seen', comparison: 'less_than_x_units_ago', value, unit: 'days' },
          ],
        },
      });
    expectFieldError(await amount(1e308), 'filters.conditions.0.value', true);
    expectFieldError(await amount(-1), 'filters.conditions.0.value', true);
    // A custom number is stored as JSON; the largest double is a number like any other.
    const stored = await api(
      'PUT',
      `/v1/workspaces/${ws}/organisations/${organisation}/custom-fields/employees`,
      {
        value: 1e308,
      },
    );
    expect(stored.status).toBe(200);
  });
});

describe('a collect batch with text PostgreSQL cannot store', () => {
  const collect = (body: unknown) => collector(t.url)(body);
  const storedSessions = async (visitor: string) =>
    (
      await t.database.db
        .selectFrom('sessions')
        .select('id')
        .where('workspace_id', '=', ws)
        .where('visitor_id', '=', visitor)
        .execute()
    ).length;

  const events = (ts: number) => [
    {
      type: 'pageview',
      ts,
      url: 'https://acme-site.com/',
      referrer: 'https://ref.example/',
      title: 'Home',
    },
    {
      type: 'custom',
      ts,
      url: 'https://acme-site.com/',
      name: 'signup',
      properties: { plan: 'pro' },
    },
    {
      type: 'form_submit',
      ts,
      url: 'https://acme-site.com/',
      fields: [{ name: 'company', value: 'Acme' }],
    },
    {
      type: 'identify',
      ts,
      url: 'https://acme-site.com/',
      email: 'jo@acme.com',
      traits: { role: 'cto' },
    },
  ];
  type Events = ReturnType<typeof events>;
  const CASES: [string, string, (batch: Events, bad: string) => void][] = [
    ['title', 'events.0.title', (batch, bad) => Object.assign(batch[0] as object, { title: bad })],
    [
      'url',
      'events.0.url',
      (batch, bad) => Object.assign(batch[0] as object, { url: `https://acme-site.com/${bad}` }),
    ],
    [
      'referrer',
      'events.0.referrer',
      (batch, bad) => Object.assign(batch[0] as object, { referrer: bad }),
    ],
    [
      'event name',
      'events.1.name',
      (batch, bad) => Object.assign(batch[1] as object, { name: bad }),
    ],
    [
      'property',
      'events.1.properties.plan',
      (batch, bad) => Object.assign(batch[1] as object, { properties: { plan: bad } }),
    ],
    [
      'property name',
      'events.1.properties.',
      (batch, bad) => Object.assign(batch[1] as object, { properties: { [bad]: 1 } }),
    ],
    [
      'field value',
      'events.2.fields.0.value',
      (batch, bad) =>
        Object.assign(batch[2] as object, { fields: [{ name: 'company', value: bad }] }),
    ],
    [
      'trait',
      'events.3.traits.role',
      (batch, bad) => Object.assign(batch[3] as object, { traits: { role: bad } }),
    ],
  ];

  it('is refused whole with 400 naming the field, and nothing of it is stored', async () => {
    for (const bad of ['a\u0000b', 'a\ud800b']) {
      for (const [what, field, spoil] of CASES) {
        const visitor = randomUUID();
        const batch = events(Date.now());
        spoil(batch, bad);
        const answer: Answer = await collect(visit(script, batch, { visitor }));
        expect(answer.status, what).toBe(400);
        expect(answer.body).toEqual({ success: false, message: expect.stringContaining(field) });
        expect(await storedSessions(visitor), what).toBe(0);
      }
    }
    // The same batch without the bad value is stored: the check above can see a stored one.
    const visitor = randomUUID();
    expect((await collect(visit(script, events(Date.now()), { visitor }))).status).toBe(202);
    expect(await storedSessions(visitor)).toBe(1);
  });

  it('is never made by our own cut: a value cut inside an emoji is stored whole pairs only', async () => {
    const visitor = randomUUID();
    const batch = events(Date.now());
    // The cuts at 500 (value) and 255 (name) fall between the halves of the emoji.
    Object.assign(batch[2] as object, {
      fields: [{ name: `${'n'.repeat(254)}\u{1F600}`, value: `${'v'.repeat(499)}\u{1F600}` }],
    });
    expect((await collect(visit(script, batch, { visitor }))).status).toBe(202);
    const { db } = t.database;
    const [stored] = await db
      .selectFrom('events')
      .select('data')
      .where('workspace_id', '=', ws)
      .where('type', '=', 'form_submit')
      .where(
        'session_id',
        'in',
        db.selectFrom('sessions').select('id').where('visitor_id', '=', visitor),
      )
      .execute();
    expect((stored?.data as { fields?: unknown } | undefined)?.fields).toEqual([
      { name: 'n'.repeat(254), value: 'v'.repeat(499) },
    ]);
  });

  it('is refused with 400, not a stack overflow, when a field value nests 5,000 deep', async () => {
    const visitor = randomUUID();
    const body = JSON.stringify(visit(script, events(Date.now()), { visitor })).replace(
      '"value":"Acme"',
      `"value":${nested(5_000)}`,
    );
    const answer = await collect(body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(
      /^Invalid events\.2\.fields\.0\.value[.0-9]*: it must not nest/,
    );
    expect(await storedSessions(visitor)).toBe(0);
  });
});
