import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { CUSTOM_FIELD_SHAPE, expectShape } from '../helpers/shape.js';

let t: TestApp;
let call: ReturnType<typeof client>;
let base: string;
let workspaceUuid: string;

beforeAll(async () => {
  t = await startTestApp();
  call = client(t.url, (await t.operator()).token);
  const workspace = await call('POST', '/v1/workspaces', { url: 'https://acme.com' });
  workspaceUuid = workspace.body.data.uuid;
  base = `/v1/workspaces/${workspaceUuid}/custom-fields`;
});
afterAll(() => t.close());

async function create(body: Record<string, unknown>) {
  const answer = await call('POST', base, body);
  expect(answer.status).toBe(201);
  return answer.body;
}

describe('custom field definitions', () => {
  it('creates a field with the defaults of contract §8 and answers the bare definition', async () => {
    const field = await create({ key: 'account_owner', name: 'Account owner', type: 'text' });
    expectShape(field, CUSTOM_FIELD_SHAPE);
    expect(field).toMatchObject({
      key: 'account_owner',
      name: 'Account owner',
      entity_type: 'organisation',
      type: 'text',
      description: '',
      group: 'custom',
      is_visible: true,
      source: 'manual',
      rules: [],
      is_system: false,
      options: [],
      visible_in_spotter: false,
    });
    expect(field.identifier).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lists definitions wrapped in {success, data}', async () => {
    await create({ key: 'listed', name: 'Listed', type: 'number' });
    const answer = await call('GET', base);
    expect(answer.status).toBe(200);
    expectShape(answer.body, { success: 'boolean', data: 'array' });
    expect(answer.body.data.length).toBeGreaterThan(0);
    for (const field of answer.body.data) expectShape(field, CUSTOM_FIELD_SHAPE);
    expect(answer.body.data.map((f: { key: string }) => f.key)).toContain('listed');
  });

  it('PATCH answers the bare updated definition and stores field_rules as rules', async () => {
    await create({ key: 'stage', name: 'Stage', type: 'select' });
    const answer = await call('PATCH', `${base}/stage`, {
      name: 'Deal stage',
      description: 'Where the deal is',
      visible_in_spotter: true,
      field_rules: [{ type: 'required', config: {} }],
      options: [
        { key: 'lead', label: 'Lead', color: '#ff0000' },
        { key: 'won', label: 'Won', color: '#0f0' },
      ],
    });
    expect(answer.status).toBe(200);
    expectShape(answer.body, CUSTOM_FIELD_SHAPE);
    expect(answer.body).toMatchObject({
      key: 'stage',
      name: 'Deal stage',
      description: 'Where the deal is',
      visible_in_spotter: true,
      rules: [{ type: 'required', config: {} }],
      options: [
        { key: 'lead', label: 'Lead', color: '#ff0000' },
        { key: 'won', label: 'Won', color: '#0f0' },
      ],
    });
    const read = await call('GET', `${base}/stage`);
    expect(read.body).toEqual(answer.body);
  });

  it('leaves visible_in_spotter as it is when omitted or null', async () => {
    await create({ key: 'public_note', name: 'Note', type: 'text', visible_in_spotter: true });
    const omitted = await call('PATCH', `${base}/public_note`, { name: 'Public note' });
    expect(omitted.body.visible_in_spotter).toBe(true);
    const nulled = await call('PATCH', `${base}/public_note`, { visible_in_spotter: null });
    expect(nulled.body.visible_in_spotter).toBe(true);
    const off = await call('PATCH', `${base}/public_note`, { visible_in_spotter: false });
    expect(off.body.visible_in_spotter).toBe(false);
  });

  it('accepts a name of 255 and a description of 1,000 characters', async () => {
    await create({ key: 'limits', name: 'Limits', type: 'text' });
    const answer = await call('PATCH', `${base}/limits`, {
      name: 'n'.repeat(255),
      description: 'd'.repeat(1000),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.name).toHaveLength(255);
  });

  it('refuses a name of 256 and a description of 1,001 characters with 422', async () => {
    await create({ key: 'too_long', name: 'Too long', type: 'text' });
    expectFieldError(await call('PATCH', `${base}/too_long`, { name: 'n'.repeat(256) }), 'name');
    expectFieldError(
      await call('PATCH', `${base}/too_long`, { description: 'd'.repeat(1001) }),
      'description',
    );
    expect((await call('GET', `${base}/too_long`)).body.name).toBe('Too long');
  });

  it('refuses a bad option colour with 422 keyed by its position', async () => {
    await create({ key: 'colourful', name: 'Colourful', type: 'select' });
    for (const color of ['red', '#12345', '#ggg', '']) {
      const answer = await call('PATCH', `${base}/colourful`, {
        options: [
          { key: 'a', label: 'A', color: '#abcdef' },
          { key: 'b', label: 'B', color },
        ],
      });
      expectFieldError(answer, 'options.1.color');
    }
    expectFieldError(
      await call('PATCH', `${base}/colourful`, {
        options: [
          { key: 'a', label: 'A', color: '#abc' },
          { key: 'a', label: 'Again', color: '#abc' },
        ],
      }),
      'options.1.key',
    );
  });

  it('refuses bad keys and types with 422', async () => {
    expectFieldError(await call('POST', base, { key: 'Bad Key', name: 'x', type: 'text' }), 'key');
    expectFieldError(
      await call('POST', base, { key: 'ok_key', name: 'x', type: 'colour' }),
      'type',
    );
  });

  it.each([
    [{ type: 'max_length', config: { value: 'ten' } }, 'field_rules.0.config.value'],
    [{ type: 'min', config: {} }, 'field_rules.0.config.value'],
    [{ type: 'pattern', config: { value: '(' } }, 'field_rules.0.config.value'],
    [{ type: 'odd', config: {} }, 'field_rules.0.type'],
  ])('refuses the rule %j with 422 keyed by %s', async (rule, field) => {
    const answer = await call('POST', base, {
      key: 'ruled',
      name: 'x',
      type: 'text',
      field_rules: [rule],
    });
    expectFieldError(answer, field);
  });

  it('refuses a key that is taken', async () => {
    await create({ key: 'unique_one', name: 'One', type: 'text' });
    expectFieldError(
      await call('POST', base, { key: 'unique_one', name: 'Two', type: 'text' }),
      'key',
    );
  });

  it('deletes a field, after which it is 404', async () => {
    await create({ key: 'doomed', name: 'Doomed', type: 'date' });
    const deleted = await call('DELETE', `${base}/doomed`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: 'Custom field deleted.' });
    expect((await call('GET', `${base}/doomed`)).status).toBe(404);
    expect((await call('PATCH', `${base}/doomed`, { name: 'x' })).status).toBe(404);
    expect((await call('DELETE', `${base}/doomed`)).status).toBe(404);
  });

  it('answers 404 for an unknown key', async () => {
    const answer = await call('PATCH', `${base}/never_made`, { name: 'x' });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ success: false, message: expect.any(String) });
  });
});

describe('tenant patterns and value limits', () => {
  let organisation: string;
  const put = (key: string, value: unknown) =>
    call(
      'PUT',
      `/v1/workspaces/${workspaceUuid}/organisations/${organisation}/custom-fields/${key}`,
      {
        value,
      },
    );
  const withPattern = (pattern: unknown) => [{ type: 'pattern', config: { value: pattern } }];

  beforeAll(async () => {
    // An organisation to hold values; how it came to be does not matter here.
    const workspace = await t.database.db
      .selectFrom('workspaces')
      .select('id')
      .where('id', '=', workspaceUuid)
      .executeTakeFirstOrThrow();
    organisation = randomUUID();
    await t.database.db
      .insertInto('organisations')
      .values({
        workspace_id: workspace.id,
        id: organisation,
        domain: 'patterned.example',
        name: '',
      })
      .execute();
  });

  it('refuses a pattern RE2 cannot run in linear time, naming the rule', async () => {
    for (const pattern of [
      '(a)\\1', // backreference
      'a(?=b)', // lookahead
      '(?<!x)y', // lookbehind
      '(unclosed',
      'x'.repeat(1001),
      '(\\w|\\d){400}(x|y){400}', // a program too large to match quickly
      42,
    ]) {
      const answer = await call('POST', base, {
        key: 'refused',
        name: 'Refused',
        type: 'text',
        field_rules: withPattern(pattern),
      });
      expect({ pattern, status: answer.status }).toEqual({ pattern, status: 422 });
      expectFieldError(answer, 'field_rules.0.config.value', true);
    }
    await create({ key: 'later_pattern', name: 'Later', type: 'text' });
    expectFieldError(
      await call('PATCH', `${base}/later_pattern`, {
        field_rules: [{ type: 'required', config: {} }, ...withPattern('a(?!b)')],
      }),
      'field_rules.1.config.value',
      true,
    );
    // RE2 syntax that is also JavaScript's is kept as given.
    const kept = await create({
      key: 'postcode',
      name: 'Postcode',
      type: 'text',
      field_rules: withPattern('^(?<area>[A-Z]{1,2})\\d'),
    });
    expect(kept.rules).toEqual(withPattern('^(?<area>[A-Z]{1,2})\\d'));
    expect((await put('postcode', 'SW1A 1AA')).status).toBe(200);
    expectFieldError(await put('postcode', 'sw1a'), 'value', true);
  });

  it('checks ^(a+)+$ in linear time, and /healthz answers meanwhile', async () => {
    await create({
      key: 'nested',
      name: 'Nested',
      type: 'text',
      field_rules: withPattern('^(a+)+$'),
    });
    expect((await put('nested', 'a'.repeat(28))).status).toBe(200);
    // The 28-character value first: a backtracking engine spends seconds on it already.
    for (const value of [`${'a'.repeat(27)}b`, `${'a'.repeat(5000)}b`]) {
      let done = false;
      const started = performance.now();
      const answer = put('nested', value).finally(() => {
        done = true;
      });
      const health: number[] = [];
      while (!done || health.length === 0) {
        const asked = performance.now();
        const healthz = await fetch(`${t.url}/healthz`);
        expect(healthz.status).toBe(200);
        health.push(performance.now() - asked);
        await sleep(10);
      }
      const refused = await answer;
      expect(performance.now() - started).toBeLessThan(1000);
      expectFieldError(refused, 'value', true);
      expect(refused.body.errors.value[0]).toContain('must match');
      expect(Math.max(...health)).toBeLessThan(1000);
    }
  });

  it('checks e-mail values in linear time and caps e-mail and URL lengths', async () => {
    await create({ key: 'contact_email', name: 'Contact email', type: 'email' });
    await create({ key: 'homepage', name: 'Homepage', type: 'url' });
    // Quadratic for the regular expression this check replaced: seconds for 70 KB.
    const hostile = `a@${'b.'.repeat(35_000)} `;
    const started = performance.now();
    const refused = await put('contact_email', hostile);
    expect(performance.now() - started).toBeLessThan(1000);
    expectFieldError(refused, 'value', true);

    const local = 'a'.repeat(64);
    // Labels of at most 63 characters (RFC 1035).
    const longest = `${local}@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(53)}.example`;
    expect(longest).toHaveLength(254);
    expect((await put('contact_email', longest)).status).toBe(200);
    expectFieldError(await put('contact_email', `a${longest}`), 'value', true);
    for (const bad of ['ann', 'ann@', '@acme.com', 'ann@acme', 'ann@@acme.com', 'ann @acme.com']) {
      expectFieldError(await put('contact_email', bad), 'value', true);
    }
    expect((await put('contact_email', 'Ann.Lee+crm@mail.acme.co.uk')).status).toBe(200);

    const url = `https://acme.com/${'p'.repeat(2048 - 'https://acme.com/'.length)}`;
    expect((await put('homepage', url)).status).toBe(200);
    const tooLong = await put('homepage', `${url}q`);
    expectFieldError(tooLong, 'value', true);
    expect(tooLong.body.errors.value[0]).toContain('2,048');
    expectFieldError(await put('nested', 'a'.repeat(10_001)), 'value', true);
  });
});
