import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  client,
  expectFieldError,
  startTestApp,
  type TestApp,
} from '../helpers/app.js';
import { ACME, addCompanies } from '../helpers/companies.js';
import { CUSTOM_FIELD_SHAPE, expectShape } from '../helpers/shape.js';

/** Contract §13's value object, every key of it. */
const VALUE_SHAPE = {
  field_identifier: 'string',
  field_key: 'string',
  field_type: 'string',
  value: 'string|number|boolean|array',
  source: 'string',
  updated_at: 'string',
};
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PROFILE_KEYS = ['name', 'website', 'industry', 'size', 'founded', 'phone', 'email'];

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
  ws = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data.uuid;
  await addCompanies(t.database.db, [ACME]);
});
afterAll(() => t.close());

/** An organisation of the workspace; how it came to be does not matter here. */
async function organisation(domain: string, workspace = ws): Promise<string> {
  const id = randomUUID();
  await t.database.db
    .insertInto('organisations')
    .values({ workspace_id: workspace, id, domain, name: '' })
    .execute();
  return id;
}

const values = (org: string, workspace = ws) =>
  `/v1/workspaces/${workspace}/organisations/${org}/custom-fields`;
const define = async (body: Record<string, unknown>) => {
  const answer = await api('POST', `/v1/workspaces/${ws}/custom-fields`, body);
  expect(answer.status).toBe(201);
  return answer.body;
};
const definition = (key: string) => api('GET', `/v1/workspaces/${ws}/custom-fields/${key}`);
const customFieldsOf = async (org: string) =>
  (await api('GET', `/v1/workspaces/${ws}/organisations/${org}`)).body.data.custom_fields;
const keysOf = (answer: Answer) => answer.body.map((v: { field_key: string }) => v.field_key);

describe('PUT .../organisations/{org}/custom-fields/{key}', () => {
  it('answers the bare value object, and a later PUT moves updated_at', async () => {
    const org = await organisation('put.example');
    const field = await define({ key: 'tier', name: 'Tier', type: 'text' });
    const before = Date.now();
    const first = await api('PUT', `${values(org)}/tier`, { value: 'gold' });
    expect(first.status).toBe(200);
    expectShape(first.body, VALUE_SHAPE);
    expect(first.body).toEqual({
      field_identifier: field.identifier,
      field_key: 'tier',
      field_type: 'text',
      value: 'gold',
      source: 'manual',
      updated_at: expect.stringMatching(ISO),
    });
    expect(Date.parse(first.body.updated_at)).toBeGreaterThanOrEqual(before - 1000);
    const second = await api('PUT', `${values(org)}/tier`, { value: 'platinum' });
    expect(second.body.value).toBe('platinum');
    expect(Date.parse(second.body.updated_at)).toBeGreaterThan(Date.parse(first.body.updated_at));
    expect(await customFieldsOf(org)).toEqual({ tier: 'platinum' });
  });

  it('keeps its validation: type, unknown key, unknown organisation', async () => {
    const org = await organisation('put-checks.example');
    await define({ key: 'headcount', name: 'Headcount', type: 'number' });
    expectFieldError(
      await api('PUT', `${values(org)}/headcount`, { value: 'many' }),
      'value',
      true,
    );
    expect((await api('PUT', `${values(org)}/never_defined`, { value: 1 })).status).toBe(404);
    expect((await api('PUT', `${values(randomUUID())}/headcount`, { value: 1 })).status).toBe(404);
    expect(await customFieldsOf(org)).toEqual({});
  });
});

describe('GET .../organisations/{org}/custom-fields', () => {
  it('lists the custom values in definition order, then the seven profile fields', async () => {
    const org = await organisation('acme.com');
    const region = await define({
      key: 'region',
      name: 'Region',
      type: 'select',
      options: [{ key: 'emea', label: 'EMEA', color: '#123456' }],
    });
    const renewal = await define({ key: 'renewal', name: 'Renewal', type: 'date' });
    // Set in the other order: the list follows the definitions, not the writes.
    await api('PUT', `${values(org)}/renewal`, { value: '2027-03-01' });
    await api('PUT', `${values(org)}/region`, { value: 'emea' });

    const answer = await api('GET', values(org));
    expect(answer.status).toBe(200);
    expect(Array.isArray(answer.body)).toBe(true);
    for (const item of answer.body) expectShape(item, VALUE_SHAPE);
    expect(keysOf(answer)).toEqual(['region', 'renewal', ...PROFILE_KEYS]);
    expect(answer.body.slice(0, 2)).toEqual([
      {
        field_identifier: region.identifier,
        field_key: 'region',
        field_type: 'select',
        value: 'emea',
        source: 'manual',
        updated_at: expect.stringMatching(ISO),
      },
      {
        field_identifier: renewal.identifier,
        field_key: 'renewal',
        field_type: 'date',
        value: '2027-03-01',
        source: 'manual',
        updated_at: expect.stringMatching(ISO),
      },
    ]);
    const directory = await t.database.db
      .selectFrom('companies')
      .select('updated_at')
      .where('domain', '=', 'acme.com')
      .executeTakeFirstOrThrow();
    const fixed = (key: string, type: string, value: string) => ({
      field_identifier: key,
      field_key: key,
      field_type: type,
      value,
      source: 'fixed',
      updated_at: directory.updated_at.toISOString(),
    });
    expect(answer.body.slice(2)).toEqual([
      fixed('name', 'text', 'Acme Corporation'),
      fixed('website', 'url', 'https://www.acme.com'),
      fixed('industry', 'text', 'Software'),
      fixed('size', 'text', '201-500'),
      fixed('founded', 'text', '1947'),
      fixed('phone', 'text', '+44 20 7946 0000'),
      fixed('email', 'email', 'hello@acme.com'),
    ]);
    // The profile fields say what the Organisation says.
    const shown = (await api('GET', `/v1/workspaces/${ws}/organisations/${org}`)).body.data;
    for (const item of answer.body.slice(2)) expect(item.value).toBe(shown[item.field_key]);
  });

  it('shows profile fields without a directory entry as "" since the organisation was made', async () => {
    const org = await organisation('unknown-co.example');
    const answer = await api('GET', values(org));
    expect(answer.status).toBe(200);
    expect(keysOf(answer)).toEqual(PROFILE_KEYS);
    const made = await t.database.db
      .selectFrom('organisations')
      .select('created_at')
      .where('id', '=', org)
      .executeTakeFirstOrThrow();
    expect(answer.body.map((v: { value: string }) => v.value)).toEqual([
      'unknown-co.example',
      'https://unknown-co.example',
      '',
      '',
      '',
      '',
      '',
    ]);
    for (const item of answer.body) {
      expect(item.source).toBe('fixed');
      expect(item.updated_at).toBe(made.created_at.toISOString());
    }
  });
});

describe('PATCH .../organisations/{org}/custom-fields', () => {
  it('defines a number field for 42 and answers {success, data: [value objects]}', async () => {
    const org = await organisation('bulk.example');
    const answer = await api('PATCH', values(org), { custom_fields: { seats: 42 } });
    expect(answer.status).toBe(200);
    expectShape(answer.body, { success: 'boolean', data: 'array' });
    expect(answer.body.success).toBe(true);
    const made = await definition('seats');
    expect(made.status).toBe(200);
    expectShape(made.body, CUSTOM_FIELD_SHAPE);
    expect(made.body).toMatchObject({
      key: 'seats',
      name: 'Seats',
      type: 'number',
      group: 'custom',
      source: 'manual',
      is_system: false,
      rules: [],
      options: [],
    });
    expect(answer.body.data).toHaveLength(1);
    expectShape(answer.body.data[0], VALUE_SHAPE);
    expect(answer.body.data[0]).toEqual({
      field_identifier: made.body.identifier,
      field_key: 'seats',
      field_type: 'number',
      value: 42,
      source: 'manual',
      updated_at: expect.stringMatching(ISO),
    });
    expect(await customFieldsOf(org)).toEqual({ seats: 42 });
  });

  it('infers boolean, date, URL, e-mail and text, and keeps the order of the request', async () => {
    const org = await organisation('infer.example');
    const sent = {
      is_partner: true,
      signed_on: '2026-02-28',
      careers_page: 'https://infer.example/jobs?x=1',
      billing_contact: 'ap@infer.example',
      account_code: '42', // a number in a string is text
      odd_day: '2026-02-30', // not a day: text
      spaced_link: 'https://infer.example/a b', // not a URL: text
      ratio: 0.25,
    };
    const answer = await api('PATCH', values(org), { custom_fields: sent });
    expect(answer.status).toBe(200);
    const types = Object.fromEntries(
      answer.body.data.map((v: { field_key: string; field_type: string }) => [
        v.field_key,
        v.field_type,
      ]),
    );
    expect(types).toEqual({
      is_partner: 'boolean',
      signed_on: 'date',
      careers_page: 'url',
      billing_contact: 'email',
      account_code: 'text',
      odd_day: 'text',
      spaced_link: 'text',
      ratio: 'number',
    });
    expect(answer.body.data.map((v: { field_key: string }) => v.field_key)).toEqual(
      Object.keys(sent),
    );
    expect(answer.body.data.map((v: { value: unknown }) => v.value)).toEqual(Object.values(sent));
    for (const [key, type] of Object.entries(types)) {
      expect((await definition(key)).body.type).toBe(type);
    }
    expect((await definition('is_partner')).body.name).toBe('Is partner');
    expect(await customFieldsOf(org)).toEqual(sent);
    // The GET list shows the same value objects (fields made together: in key order).
    const listed = await api('GET', values(org));
    const byKey = (list: { field_key: string }[]) =>
      [...list].sort((a, b) => a.field_key.localeCompare(b.field_key));
    expect(listed.body.slice(0, 8)).toEqual(byKey(answer.body.data));
  });

  it('checks keys that have a definition as PUT does', async () => {
    const org = await organisation('defined.example');
    await define({
      key: 'stage',
      name: 'Stage',
      type: 'select',
      options: [{ key: 'lead', label: 'Lead', color: '#f00' }],
    });
    await define({
      key: 'ref_code',
      name: 'Ref',
      type: 'text',
      field_rules: [{ type: 'pattern', config: { value: '^[A-Z]{3}$' } }],
    });
    expectFieldError(
      await api('PATCH', values(org), { custom_fields: { stage: 'won' } }),
      'custom_fields.stage',
      true,
    );
    const bad = await api('PATCH', values(org), { custom_fields: { ref_code: 'abcd' } });
    expectFieldError(bad, 'custom_fields.ref_code', true);
    expect(bad.body.message).toContain('ref_code');
    const good = await api('PATCH', values(org), {
      custom_fields: { stage: 'lead', ref_code: 'ABC' },
    });
    expect(good.status).toBe(200);
    expect(good.body.data.map((v: { field_type: string }) => v.field_type)).toEqual([
      'select',
      'text',
    ]);
    expect(await customFieldsOf(org)).toEqual({ stage: 'lead', ref_code: 'ABC' });
  });

  it.each([
    ['""', ''],
    ['null', null],
    ['[]', []],
  ])('refuses an empty value (%s) naming the field, and stores nothing', async (_label, empty) => {
    const org = await organisation(`empty-${randomUUID().slice(0, 8)}.example`);
    await api('PATCH', values(org), { custom_fields: { kept_note: 'before' } });
    const key = `fresh_${randomUUID().slice(0, 8)}`;
    const answer = await api('PATCH', values(org), {
      custom_fields: { kept_note: 'after', [key]: empty },
    });
    expectFieldError(answer, `custom_fields.${key}`, true);
    expect(answer.body.errors[`custom_fields.${key}`][0]).toContain('DELETE');
    expect((await definition(key)).status).toBe(404);
    expect(await customFieldsOf(org)).toEqual({ kept_note: 'before' });
  });

  it('refuses 51 keys and takes 50', async () => {
    const org = await organisation('many.example');
    const many = (count: number, prefix: string) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}_${i}`, i]));
    expectFieldError(
      await api('PATCH', values(org), { custom_fields: many(51, 'too_many') }),
      'custom_fields',
      true,
    );
    expect((await definition('too_many_0')).status).toBe(404);
    expect(await customFieldsOf(org)).toEqual({});
    expectFieldError(await api('PATCH', values(org), { custom_fields: {} }), 'custom_fields', true);
    const fifty = await api('PATCH', values(org), { custom_fields: many(50, 'fifty') });
    expect(fifty.status).toBe(200);
    expect(fifty.body.data).toHaveLength(50);
    expect(Object.keys(await customFieldsOf(org))).toHaveLength(50);
  });

  it('stores all or nothing: one invalid key leaves every value and definition as it was', async () => {
    const org = await organisation('atomic.example');
    await define({ key: 'budget', name: 'Budget', type: 'number' });
    await api('PUT', `${values(org)}/budget`, { value: 10 });
    const answer = await api('PATCH', values(org), {
      custom_fields: { new_label: 'made?', budget: 'lots', another_new: 7 },
    });
    expectFieldError(answer, 'custom_fields.budget', true);
    expect((await definition('new_label')).status).toBe(404);
    expect((await definition('another_new')).status).toBe(404);
    expect(await customFieldsOf(org)).toEqual({ budget: 10 });
    // Errors of several keys are all named.
    const several = await api('PATCH', values(org), {
      custom_fields: { 'Bad Key': 1, budget: 'lots', nested_thing: { a: 1 } },
    });
    expect(several.status).toBe(422);
    expect(Object.keys(several.body.errors)).toEqual(['custom_fields.Bad Key']);
    const both = await api('PATCH', values(org), {
      custom_fields: { budget: 'lots', nested_thing: { a: 1 } },
    });
    expect(Object.keys(both.body.errors).sort()).toEqual([
      'custom_fields.budget',
      'custom_fields.nested_thing',
    ]);
    expect((await definition('nested_thing')).status).toBe(404);
    expect(await customFieldsOf(org)).toEqual({ budget: 10 });
  });

  it('refuses keys that do not match the key pattern', async () => {
    const org = await organisation('keys.example');
    for (const key of ['Bad', '1st', 'with-dash', 'a'.repeat(256), '_x', 'spa ce']) {
      expectFieldError(
        await api('PATCH', values(org), { custom_fields: { [key]: 'x' } }),
        `custom_fields.${key}`,
        true,
      );
    }
    expect(await customFieldsOf(org)).toEqual({});
  });

  it('keeps segment membership current in the same request, as PUT does', async () => {
    const org = await organisation('segmented.example');
    await define({ key: 'employees', name: 'Employees', type: 'number' });
    const segment = await api('POST', `/v1/workspaces/${ws}/segments`, {
      name: 'Large',
      filters: {
        operator: 'AND',
        conditions: [{ field: 'employees', comparison: 'greater_than', value: 100 }],
      },
    });
    expect(segment.status).toBe(201);
    const segmentsOf = async () =>
      (await api('GET', `/v1/workspaces/${ws}/organisations/${org}`)).body.data.segments.map(
        (s: { uuid: string }) => s.uuid,
      );
    expect(await segmentsOf()).not.toContain(segment.body.uuid);
    await api('PATCH', values(org), { custom_fields: { employees: 500 } });
    expect(await segmentsOf()).toContain(segment.body.uuid);
    await api('PATCH', values(org), { custom_fields: { employees: 5 } });
    expect(await segmentsOf()).not.toContain(segment.body.uuid);
  });
});

describe('profile fields are read-only', () => {
  it.each(PROFILE_KEYS)(
    'PUT, PATCH and DELETE of %s are 422, and no definition takes it',
    async (key) => {
      const org = await organisation(`ro-${key}.example`);
      const put = await api('PUT', `${values(org)}/${key}`, { value: 'x' });
      expectFieldError(put, 'key', true);
      expect(put.body.message).toContain('read-only');
      expectFieldError(
        await api('PATCH', values(org), { custom_fields: { [key]: 'x', fine_key: 'y' } }),
        `custom_fields.${key}`,
        true,
      );
      expectFieldError(await api('DELETE', `${values(org)}/${key}`), 'key', true);
      expectFieldError(
        await api('POST', `/v1/workspaces/${ws}/custom-fields`, { key, name: key, type: 'text' }),
        'key',
        true,
      );
      expect((await definition('fine_key')).status).toBe(404);
      expect(await customFieldsOf(org)).toEqual({});
    },
  );
});

describe('another workspace', () => {
  it("answers 404 for an organisation of the caller's other workspace, and for a stranger's", async () => {
    const other = (await api('POST', '/v1/workspaces', { url: 'https://other.example' })).body.data
      .uuid;
    const theirs = await organisation('theirs.example', other);
    await define({ key: 'owner_name', name: 'Owner', type: 'text' });
    // The organisation exists, in another workspace: addressed through this one it is 404.
    for (const [method, path, body] of [
      ['GET', values(theirs)],
      ['PUT', `${values(theirs)}/owner_name`, { value: 'x' }],
      ['PATCH', values(theirs), { custom_fields: { owner_name: 'x' } }],
      ['DELETE', `${values(theirs)}/owner_name`],
    ] as const) {
      const answer = await api(method, path, body);
      expect({ method, status: answer.status }).toEqual({ method, status: 404 });
      expect(answer.body).toEqual({ success: false, message: 'Organisation not found.' });
    }
    expect((await api('GET', values(theirs, other))).status).toBe(200);
    // A workspace of another user is 404 as a whole.
    const stranger = client(t.url, (await t.operator()).token);
    expect((await stranger('GET', values(theirs, other))).status).toBe(404);
    expect(
      (await stranger('PATCH', values(theirs, other), { custom_fields: { owner_name: 'x' } }))
        .status,
    ).toBe(404);
    expect((await api('GET', values('not-a-uuid'))).status).toBe(404);
  });
});

describe('DELETE .../organisations/{org}/custom-fields/{key}', () => {
  it('clears a value set by PATCH and answers the Organisation', async () => {
    const org = await organisation('cleared.example');
    await api('PATCH', values(org), { custom_fields: { temp_flag: true, kept_flag: false } });
    const cleared = await api('DELETE', `${values(org)}/temp_flag`);
    expect(cleared.status).toBe(200);
    expect(cleared.body.success).toBe(true);
    expect(cleared.body.data.uuid).toBe(org);
    expect(cleared.body.data.custom_fields).toEqual({ kept_flag: false });
    expect(keysOf(await api('GET', values(org)))).toEqual(['kept_flag', ...PROFILE_KEYS]);
  });
});

describe('concurrent bulk PATCHes', () => {
  it('that define the same new key: the first definition stands, the other value is checked by it', async () => {
    const [a, b, c, d] = await Promise.all(
      ['race-a', 'race-b', 'race-c', 'race-d'].map((name) => organisation(`${name}.example`)),
    );
    const answers = await Promise.all([
      api('PATCH', values(a as string), { custom_fields: { race_key: 5, race_same: 'x' } }),
      api('PATCH', values(b as string), { custom_fields: { race_same: 'y', race_key: 'five' } }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 422]);
    const made = (await definition('race_key')).body.type;
    const refused = answers.find((answer) => answer.status === 422) as Answer;
    expectFieldError(refused, 'custom_fields.race_key', true);
    expect(made).toBe(answers[0]?.status === 200 ? 'number' : 'text');
    // Same type both ways: both are stored.
    const same = await Promise.all([
      api('PATCH', values(c as string), { custom_fields: { race_count: 1 } }),
      api('PATCH', values(d as string), { custom_fields: { race_count: 2 } }),
    ]);
    expect(same.map((answer) => answer.status)).toEqual([200, 200]);
    expect(same[0]?.body.data[0].field_identifier).toBe(same[1]?.body.data[0].field_identifier);
  });
});

describe('/openapi.json', () => {
  it('documents the value object and the value routes', async () => {
    const { body } = await api('GET', '/openapi.json');
    expect(Object.keys(body.components.schemas.CustomFieldValue.properties).sort()).toEqual(
      Object.keys(VALUE_SHAPE).sort(),
    );
    const base = '/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/custom-fields';
    const ref = { $ref: '#/components/schemas/CustomFieldValue' };
    const ok = (operation: {
      responses: Record<string, { content: Record<string, { schema: unknown }> }>;
    }) => operation.responses['200']?.content['application/json']?.schema;
    expect(ok(body.paths[base].get)).toEqual({ type: 'array', items: ref });
    expect(ok(body.paths[`${base}/{key}`].put)).toEqual(ref);
    expect(ok(body.paths[base].patch)).toMatchObject({
      properties: { success: { type: 'boolean' }, data: { type: 'array', items: ref } },
    });
    expect(
      body.paths[base].patch.requestBody.content['application/json'].schema.properties,
    ).toHaveProperty('custom_fields');
    const reveal = body.paths['/v1/workspaces/{workspaceUuid}/contacts/{contactUuid}/reveal-email'];
    expect(ok(reveal.put)).toMatchObject({
      properties: { data: { $ref: '#/components/schemas/Contact' } },
    });
  });
});
