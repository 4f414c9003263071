import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectFieldError, startTestApp, type TestApp } from './helpers/app.js';
import { CUSTOM_FIELD_SHAPE, expectShape } from './helpers/shape.js';

let t: TestApp;
let call: ReturnType<typeof client>;
let base: string;

beforeAll(async () => {
  t = await startTestApp();
  call = client(t.url, (await t.operator()).token);
  const workspace = await call('POST', '/v1/workspaces', { url: 'https://acme.com' });
  base = `/v1/workspaces/${workspace.body.data.uuid}/custom-fields`;
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
