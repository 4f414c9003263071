import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { deleteExpired } from '../../src/privacy/retention.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { type Received, startReceiver } from '../helpers/receiver.js';
import { expectShape } from '../helpers/shape.js';
import { until } from '../helpers/wait.js';

let t: TestApp;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  t = await startTestApp({
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    SEGMENT_REFRESH_SECONDS: '1',
    TRUST_PROXY: '127.0.0.1',
  });
  await upsertIpRanges(t.database.db, [
    { network: '81.2.69.0/24', domain: 'network.example', name: 'Network Ltd' },
  ]);
  call = client(t.url, (await t.operator()).token);
});
afterAll(() => t.close());

const newWorkspace = async () =>
  (await call('POST', '/v1/workspaces', { url: 'https://acme.com' })).body.data as {
    uuid: string;
    tracking_script_id: string;
  };
const where = (field: string, comparison: string, value?: unknown, unit?: string) => ({
  operator: 'AND',
  conditions: [{ field, comparison, ...(value !== undefined && { value }), ...(unit && { unit }) }],
});

describe('segment definitions', () => {
  it('lists a new workspace’s segments as an empty bare array', async () => {
    const ws = (await newWorkspace()).uuid;
    const answer = await call('GET', `/v1/workspaces/${ws}/segments`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([]);
  });

  it('creates (201 {uuid, name, filters}), lists by name, reads, renames, refilters and deletes', async () => {
    const ws = (await newWorkspace()).uuid;
    const other = (await newWorkspace()).uuid;
    const filters = {
      operator: 'OR',
      conditions: [
        { field: 'country', comparison: 'equal', value: 'DE' },
        {
          operator: 'AND',
          conditions: [
            { field: 'last_seen', comparison: 'less_than_x_units_ago', value: 7 },
            { field: 'tag', comparison: 'set', value: null },
          ],
        },
      ],
    };
    const created = await call('POST', `/v1/workspaces/${ws}/segments`, {
      name: '  Germany ',
      filters,
    });
    expect(created.status).toBe(201);
    expectShape(created.body, { uuid: 'string', name: 'string', filters: 'object' });
    expect(created.body.name).toBe('Germany');
    // Stored as the grammar's keys only; the default unit is spelled out.
    expect(created.body.filters).toEqual({
      operator: 'OR',
      conditions: [
        { field: 'country', comparison: 'equal', value: 'DE' },
        {
          operator: 'AND',
          conditions: [
            { field: 'last_seen', comparison: 'less_than_x_units_ago', value: 7, unit: 'days' },
            { field: 'tag', comparison: 'set' },
          ],
        },
      ],
    });
    const uuid = created.body.uuid;
    await call('POST', `/v1/workspaces/${ws}/segments`, {
      name: 'Enterprise',
      filters: where('size', 'equal', '5001+'),
    });
    await call('POST', `/v1/workspaces/${other}/segments`, {
      name: 'Elsewhere',
      filters: where('size', 'equal', '5001+'),
    });
    const listed = await call('GET', `/v1/workspaces/${ws}/segments`);
    expect(listed.body.map((s: { name: string }) => s.name)).toEqual(['Enterprise', 'Germany']);
    for (const segment of listed.body) expectShape(segment, { uuid: 'string', name: 'string' });

    expect((await call('GET', `/v1/workspaces/${ws}/segments/${uuid}`)).body).toEqual(created.body);
    const renamed = await call('PATCH', `/v1/workspaces/${ws}/segments/${uuid}`, { name: 'DACH' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created.body, name: 'DACH' });
    const refiltered = await call('PATCH', `/v1/workspaces/${ws}/segments/${uuid}`, {
      filters: where('country', 'in', ['DE', 'AT', 'CH']),
    });
    expect(refiltered.body).toEqual({
      uuid,
      name: 'DACH',
      filters: where('country', 'in', ['DE', 'AT', 'CH']),
    });

    const deleted = await call('DELETE', `/v1/workspaces/${ws}/segments/${uuid}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: 'Segment deleted.' });
    expect((await call('GET', `/v1/workspaces/${ws}/segments/${uuid}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/workspaces/${ws}/segments/${uuid}`)).status).toBe(404);
    // Another workspace's segment, and an id that is no UUID, are simply not there.
    const foreign = (await call('GET', `/v1/workspaces/${other}/segments`)).body[0].uuid;
    expect((await call('GET', `/v1/workspaces/${ws}/segments/${foreign}`)).status).toBe(404);
    expect((await call('GET', `/v1/workspaces/${ws}/segments/not-a-uuid`)).status).toBe(404);
  });
});

describe('filter validation (422, one key per offending field)', () => {
  let ws: string;
  beforeAll(async () => {
    ws = (await newWorkspace()).uuid;
    await call('POST', `/v1/workspaces/${ws}/custom-fields`, {
      key: 'tier',
      name: 'Tier',
      type: 'select',
      options: [{ key: 'gold', label: 'Gold', color: '#ffd700' }],
    });
  });
  const post = (filters: unknown, name: unknown = 'A segment') =>
    call('POST', `/v1/workspaces/${ws}/segments`, { name, filters });
  const condition = (field: unknown, comparison: unknown, value?: unknown, unit?: unknown) =>
    post({
      operator: 'AND',
      conditions: [{ field, comparison, value, ...(unit !== undefined && { unit }) }],
    });

  it('refuses unknown fields and comparisons', async () => {
    expectFieldError(await condition('revenue', 'equal', 'x'), 'filters.conditions.0.field', true);
    expectFieldError(await condition('name', 'like', 'x'), 'filters.conditions.0.comparison', true);
    expectFieldError(await condition(undefined, 'equal', 'x'), 'filters.conditions.0.field');
    expectFieldError(await condition('name', undefined, 'x'), 'filters.conditions.0.comparison');
  });

  it('refuses comparisons that do not apply to the field’s kind', async () => {
    for (const [field, comparison] of [
      ['name', 'greater_than'],
      ['sessions', 'contains'],
      ['sessions', 'set'],
      ['first_seen', 'starts_with'],
      ['tag', 'is_true'],
      ['name', 'less_than_x_units_ago'],
    ]) {
      const answer = await condition(field, comparison, 1);
      expectFieldError(answer, 'filters.conditions.0.comparison', true);
      expect(answer.body.errors['filters.conditions.0.comparison'][0]).toContain('takes:');
    }
  });

  it('refuses badly typed values', async () => {
    const bad: [string, string, unknown, unknown?][] = [
      ['sessions', 'greater_than', '3'],
      ['sessions', 'equal', null],
      ['name', 'equal', 42],
      ['name', 'contains', ''],
      ['name', 'equal', 'x'.repeat(1001)],
      ['first_seen', 'equal', '2026-02-30'],
      ['first_seen', 'greater_than', '21/11/2026'],
      ['last_seen', 'less_than_x_units_ago', 1.5],
      ['last_seen', 'less_than_x_units_ago', 0],
      ['last_seen', 'less_than_x_units_ago', '7'],
      ['industry', 'in', []],
      ['industry', 'in', 'Software'],
      ['sessions', 'in', [1, 'two']],
      ['tier', 'equal', 'platinum'],
    ];
    for (const [field, comparison, value] of bad) {
      const answer = await condition(field, comparison, value);
      expect(answer.status, `${field} ${comparison} ${JSON.stringify(value)}`).toBe(422);
      expectFieldError(answer, 'filters.conditions.0.value', true);
    }
  });

  it('refuses a unit where none applies and units it does not know', async () => {
    expectFieldError(await condition('name', 'equal', 'x', 'days'), 'filters.conditions.0.unit');
    expectFieldError(
      await condition('last_seen', 'less_than_x_units_ago', 3, 'fortnights'),
      'filters.conditions.0.unit',
    );
  });

  it('checks groups: operator, conditions, nesting, and names the nested path', async () => {
    expectFieldError(await post({ operator: 'XOR', conditions: [] }), 'filters.operator');
    expectFieldError(await post({ operator: 'AND', conditions: {} }), 'filters.conditions');
    expectFieldError(await post({ operator: 'AND' }), 'filters.conditions');
    expectFieldError(await post('everything'), 'filters');
    const nested = await post({
      operator: 'AND',
      conditions: [
        { field: 'name', comparison: 'contains', value: 'a' },
        {
          operator: 'or',
          conditions: [
            { field: 'sessions', comparison: 'greater_than', value: 'many' },
            { field: 'colour', comparison: 'equal', value: 'red' },
          ],
        },
      ],
    });
    expect(nested.status).toBe(422);
    expect(Object.keys(nested.body.errors).sort()).toEqual([
      'filters.conditions.1.conditions.0.value',
      'filters.conditions.1.conditions.1.field',
      'filters.conditions.1.operator',
    ]);
    let deep: unknown = { field: 'name', comparison: 'set' };
    for (let i = 0; i < 6; i++) deep = { operator: 'AND', conditions: [deep] };
    expectFieldError(
      await post(deep),
      'filters.conditions.0.conditions.0.conditions.0.conditions.0.conditions.0',
    );
  });

  it('checks the name, and PATCH and the ad hoc search check filters alike', async () => {
    expectFieldError(await post(where('name', 'set'), '   '), 'name');
    expectFieldError(await post(where('name', 'set'), ''), 'name');
    const saved = await post(where('name', 'set'));
    expect(saved.status).toBe(201);
    expectFieldError(
      await call('PATCH', `/v1/workspaces/${ws}/segments/${saved.body.uuid}`, {
        filters: where('sessions', 'equal', 'x'),
      }),
      'filters.conditions.0.value',
    );
    expectFieldError(
      await call('POST', `/v1/workspaces/${ws}/organisations`, {
        filters: where('nope', 'set'),
      }),
      'filters.conditions.0.field',
    );
    // Nothing was changed by the refused PATCH.
    expect(
      (await call('GET', `/v1/workspaces/${ws}/segments/${saved.body.uuid}`)).body.filters,
    ).toEqual(where('name', 'set'));
  });
});

describe('membership kept current', () => {
  const SECRET = 'whsec-segments-0123456789';
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let ws: string;
  let send: (
    events: Record<string, unknown>[],
    visitor: string,
    headers?: Record<string, string>,
  ) => Promise<unknown>;
  const organisationsOf = async (segment: string) =>
    (await call('GET', `/v1/workspaces/${ws}/organisations?segmentUuid=${segment}`)).body.data.map(
      (organisation: { uuid: string }) => organisation.uuid,
    );
  const segmentsOf = async (organisation: string) =>
    (
      await call('GET', `/v1/workspaces/${ws}/organisations/${organisation}`)
    ).body.data.segments.map((segment: { uuid: string }) => segment.uuid);
  const entered = () =>
    receiver.received
      .filter((r: Received) => r.headers['x-footfall-event'] === 'segment.entered')
      .map((r: Received) => JSON.parse(r.body));
  const segment = async (name: string, filters: unknown) =>
    (await call('POST', `/v1/workspaces/${ws}/segments`, { name, filters })).body.uuid as string;
  const organisationOf = async (domain: string) => {
    const row = await t.database.db
      .selectFrom('organisations')
      .select('id')
      .where('workspace_id', '=', ws)
      .where('domain', '=', domain)
      .executeTakeFirstOrThrow();
    return row.id;
  };
  const identify = (email: string, ts: number) => ({
    type: 'identify',
    ts,
    url: 'https://acme.com/',
    email,
  });

  beforeAll(async () => {
    receiver = await startReceiver();
    await call('PATCH', '/radar/operator/v1/webhooks', {
      delivery: { webhook_url: receiver.url, webhook_secret: SECRET },
    });
    const workspace = await newWorkspace();
    ws = workspace.uuid;
    send = (events, visitor, headers = {}) =>
      collector(t.url)(visit(workspace.tracking_script_id, events, { visitor }), headers);
  });
  afterAll(() => receiver.close());

  it('follows a new session, and sends segment.entered for it', async () => {
    const visitor = randomUUID();
    const dayAgo = Date.now() - 86_400_000;
    await send(
      [identify('ann@returning.example', dayAgo), pageview('https://acme.com/', dayAgo)],
      visitor,
    );
    const org = await organisationOf('returning.example');
    const returning = await segment('Came back', where('sessions', 'greater_than', 1));
    // Found members at creation do not count as entering: only later changes do.
    const found = await segment('Seen at all', where('sessions', 'greater_than', 0));
    expect(await organisationsOf(found)).toEqual([org]);
    expect(await organisationsOf(returning)).toEqual([]);

    await send([pageview('https://acme.com/pricing', Date.now())], visitor);
    await until(async () => (await organisationsOf(returning)).includes(org));
    expect(await segmentsOf(org)).toEqual(expect.arrayContaining([returning, found]));

    await until(() => entered().length > 0);
    const [body] = entered();
    expect(body.event).toBe('segment.entered');
    expect(body.segment).toEqual({ uuid: returning, name: 'Came back' });
    expect(body.organisation.uuid).toBe(org);
    expect(body.organisation.segments.map((s: { uuid: string }) => s.uuid)).toContain(returning);
    expect(body.session).toBeNull();
    await sleep(1500); // nothing else may come: not the found member, not a second one
    expect(entered()).toHaveLength(1);
  });

  it('takes a group without conditions as every organisation, as Snitcher clients send it', async () => {
    const all = (
      await call('GET', `/v1/workspaces/${ws}/organisations?include_all=true&size=100`)
    ).body.data.map((o: { uuid: string }) => o.uuid);
    expect(all.length).toBeGreaterThan(0);
    const adHoc = async (filters: unknown) => {
      const answer = await call('POST', `/v1/workspaces/${ws}/organisations?include_all=true`, {
        filters,
      });
      expect(answer.status).toBe(200);
      return answer.body.data.map((o: { uuid: string }) => o.uuid).sort();
    };
    expect(await adHoc({ operator: 'AND', conditions: [] })).toEqual([...all].sort());
    expect(await adHoc({ operator: 'OR', conditions: [] })).toEqual([...all].sort());
    // Nested, it holds too: AND with a condition that holds for none is still none.
    expect(
      await adHoc({
        operator: 'AND',
        conditions: [{ operator: 'OR', conditions: [] }, where('name', 'equal', 'nobody at all')],
      }),
    ).toEqual([]);
    const everyone = await segment('Everyone', { operator: 'AND', conditions: [] });
    await until(async () => (await organisationsOf(everyone)).length === all.length);
  });

  it('follows tags at once', async () => {
    const visitor = randomUUID();
    await send(
      [identify('bo@tagged.example', Date.now()), pageview('https://acme.com/', Date.now())],
      visitor,
    );
    const org = await organisationOf('tagged.example');
    const vip = await segment('VIP', where('tag', 'equal', 'vip'));
    expect(await segmentsOf(org)).not.toContain(vip);
    await call('POST', `/v1/workspaces/${ws}/organisations/${org}/tags`, { tag_name: 'VIP' });
    expect(await segmentsOf(org)).toContain(vip);
    expect(await organisationsOf(vip)).toEqual([org]);
    await call('DELETE', `/v1/workspaces/${ws}/organisations/${org}/tags`, { tag_name: 'vip' });
    expect(await segmentsOf(org)).not.toContain(vip);
  });

  it('follows custom-field values at once, and a deleted field', async () => {
    const visitor = randomUUID();
    await send(
      [identify('cy@valued.example', Date.now()), pageview('https://acme.com/', Date.now())],
      visitor,
    );
    const org = await organisationOf('valued.example');
    await call('POST', `/v1/workspaces/${ws}/custom-fields`, {
      key: 'seats',
      name: 'Seats',
      type: 'number',
    });
    const big = await segment('Big', where('seats', 'greater_than', 100));
    const unknownSize = await segment('Unknown size', where('seats', 'not_set'));
    expect(await segmentsOf(org)).toContain(unknownSize);
    const put = (value: number) =>
      call('PUT', `/v1/workspaces/${ws}/organisations/${org}/custom-fields/seats`, { value });
    expect((await put(150)).status).toBe(200);
    expect(await segmentsOf(org)).toContain(big);
    expect(await segmentsOf(org)).not.toContain(unknownSize);
    await put(50);
    expect(await segmentsOf(org)).not.toContain(big);
    await put(500);
    await call('DELETE', `/v1/workspaces/${ws}/organisations/${org}/custom-fields/seats`);
    expect(await segmentsOf(org)).not.toContain(big);
    expect(await segmentsOf(org)).toContain(unknownSize);
    await put(500);
    expect(await segmentsOf(org)).toContain(big);
    // Deleting the field leaves no values: the segments follow without any request.
    await call('DELETE', `/v1/workspaces/${ws}/custom-fields/seats`);
    await until(async () => !(await segmentsOf(org)).includes(big));
    await until(async () => (await segmentsOf(org)).includes(unknownSize));
  });

  it('follows the retention job deleting old sessions', async () => {
    const at = Date.now() - 40 * 86_400_000;
    await send([identify('fa@old.example', at), pageview('https://acme.com/', at)], randomUUID());
    const org = await organisationOf('old.example');
    const visited = await segment('Visited', where('sessions', 'greater_than', 0));
    expect(await segmentsOf(org)).toContain(visited);
    // What the daily job does with RETENTION_DAYS=30.
    expect((await deleteExpired(t.database.db, 30)).sessions).toBe(1);
    await until(async () => !(await segmentsOf(org)).includes(visited));
  });

  it('follows time: relative-date boundaries passing', async () => {
    const visitor = randomUUID();
    // The boundary passes 20 s after the visit; the check waits up to 40 s for the move.
    const at = Date.now() - 40_000;
    await send([identify('di@quiet.example', at), pageview('https://acme.com/', at)], visitor);
    const org = await organisationOf('quiet.example');
    const active = await segment(
      'Active this minute',
      where('last_seen', 'less_than_x_units_ago', 1, 'minutes'),
    );
    const dormant = await segment(
      'Dormant',
      where('last_seen', 'more_than_x_units_ago', 1, 'minutes'),
    );
    const members = await segmentsOf(org);
    expect(members).toContain(active);
    expect(members).not.toContain(dormant);
    // A minute after the visit, with no request in between, it has moved.
    await until(async () => {
      const now = await segmentsOf(org);
      return now.includes(dormant) && !now.includes(active);
    }, 40_000);
    await until(() => entered().some((body) => body.segment.uuid === dormant));
  });

  it('follows an identification that moves sessions between organisations', async () => {
    const visitor = randomUUID();
    const office = { 'x-forwarded-for': '81.2.69.160' };
    await send([pageview('https://acme.com/', Date.now() - 3_600_000)], visitor, office);
    await send([pageview('https://acme.com/', Date.now())], visitor, office);
    const network = await organisationOf('network.example');
    const many = await segment('Two sessions or more', where('sessions', 'greater_than', 1));
    expect(await organisationsOf(many)).toContain(network);
    // The visitor names their company: both sessions move to it.
    await send([identify('ed@named.example', Date.now())], visitor, office);
    const named = await organisationOf('named.example');
    await until(async () => {
      const now = await organisationsOf(many);
      return now.includes(named) && !now.includes(network);
    });
  });
});
