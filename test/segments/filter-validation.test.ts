import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';

// What the filter grammar refuses (contract §9, §13): a 422 naming the offending part, both
// for a saved segment and for an ad hoc search, and nothing is saved.

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
  ws = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data.uuid;
  for (const field of [
    { key: 'seats', name: 'Seats', type: 'number' },
    { key: 'renewal', name: 'Renewal', type: 'date' },
    { key: 'active', name: 'Active', type: 'boolean' },
  ]) {
    expect((await api('POST', `/v1/workspaces/${ws}/custom-fields`, field)).status).toBe(201);
  }
});
afterAll(() => t.close());

const condition = (field: string, comparison: string, value?: unknown, unit?: unknown) => ({
  field,
  comparison,
  ...(value !== undefined && { value }),
  ...(unit !== undefined && { unit }),
});
const filters = (...conditions: unknown[]) => ({ operator: 'AND', conditions });

/** The answers of a segment save and of an ad hoc search with these filters. */
async function both(body: unknown) {
  const saved = await api('POST', `/v1/workspaces/${ws}/segments`, { name: 'x', filters: body });
  const adHoc = await api('POST', `/v1/workspaces/${ws}/organisations`, { filters: body });
  return [saved, adHoc];
}

describe('between and not_between', () => {
  it.each([
    ['not a list', 'sessions', 5],
    ['one end', 'sessions', [1]],
    ['three items', 'pageviews', [1, 2, 3]],
    ['an empty list', 'seats', []],
    ['text for numbers', 'seats', ['1', '2']],
    ['a date for numbers', 'time_on_site', ['2026-01-01', '2026-02-01']],
    ['a null end', 'sessions', [1, null]],
    ['low above high', 'sessions', [5, 1]],
    ['numbers for dates', 'first_seen', [1, 2]],
    ['a date that is none', 'renewal', ['2026-02-30', '2026-03-01']],
    ['a timestamp for a date', 'last_seen', ['2026-01-01T00:00:00Z', '2026-02-01']],
    ['low day after high day', 'renewal', ['2026-02-01', '2026-01-31']],
    ['an object', 'first_seen', { low: '2026-01-01', high: '2026-02-01' }],
  ])('refuses %s', async (_what, field, value) => {
    for (const comparison of ['between', 'not_between']) {
      for (const answer of await both(filters(condition(field, comparison, value)))) {
        expectFieldError(answer, 'filters.conditions.0.value', true);
      }
    }
  });

  it('names the nested condition that is wrong', async () => {
    const body = filters(condition('sessions', 'between', [1, 2]), {
      operator: 'OR',
      conditions: [condition('seats', 'equal', 3), condition('seats', 'between', [9, 2])],
    });
    for (const answer of await both(body)) {
      expectFieldError(answer, 'filters.conditions.1.conditions.1.value', true);
      expect(answer.body.errors['filters.conditions.1.conditions.1.value'][0]).toMatch(/low/);
    }
  });

  it('takes equal ends, and saves nothing when refusing', async () => {
    const [saved, adHoc] = await both(filters(condition('seats', 'between', [3, 3])));
    expect(saved?.status).toBe(201);
    expect(adHoc?.status).toBe(200);
    const list = await api('GET', `/v1/workspaces/${ws}/segments`);
    expect(list.body.map((segment: { name: string }) => segment.name)).toEqual(['x']);
  });
});

describe('comparisons a field does not take', () => {
  it.each([
    ['name', 'between', ['a', 'b']],
    ['name', 'greater_than_or_equal', 'a'],
    ['tag', 'less_than_or_equal', 'a'],
    ['sessions', 'doesnt_start_with', '1'],
    ['first_seen', 'doesnt_end_with', '01'],
    ['active', 'greater_than_or_equal', 1],
    ['active', 'between', [0, 1]],
    ['seats', 'doesnt_end_with', '0'],
    // Every session has a source: whether one is set says nothing.
    ['source', 'set', undefined],
    ['source', 'between', ['a', 'b']],
  ])('refuses %s %s', async (field, comparison, value) => {
    for (const answer of await both(filters(condition(field, comparison, value)))) {
      expectFieldError(answer, 'filters.conditions.0.comparison', true);
    }
  });

  it('refuses comparisons it does not know, listing the new ones', async () => {
    for (const answer of await both(filters(condition('name', 'doesnt_contain', 'x')))) {
      expectFieldError(answer, 'filters.conditions.0.comparison', true);
      expect(answer.body.errors['filters.conditions.0.comparison'][0]).toContain(
        'doesnt_start_with',
      );
    }
  });
});

describe('values of the new one-value comparisons', () => {
  it.each([
    ['name', 'doesnt_start_with', ''],
    ['name', 'doesnt_end_with', 5],
    ['source', 'starts_with', ['a']],
    ['sessions', 'greater_than_or_equal', '2'],
    ['first_seen', 'less_than_or_equal', '2026-13-01'],
  ])('refuses %s %s %j', async (field, comparison, value) => {
    for (const answer of await both(filters(condition(field, comparison, value)))) {
      expectFieldError(answer, 'filters.conditions.0.value', true);
    }
  });
});

describe('units', () => {
  it.each(['fortnight', 'Days', 'd', 7])('refuses the unit %j', async (unit) => {
    for (const answer of await both(
      filters(condition('last_seen', 'less_than_x_units_ago', 3, unit)),
    )) {
      expectFieldError(answer, 'filters.conditions.0.unit', true);
      expect(answer.body.errors['filters.conditions.0.unit'][0]).toContain('second, seconds');
    }
  });

  it('takes every unit in the singular and the plural', async () => {
    for (const unit of ['second', 'minute', 'hour', 'day', 'week', 'month', 'year']) {
      for (const name of [unit, `${unit}s`]) {
        const [saved, adHoc] = await both(
          filters(condition('first_seen', 'more_than_x_units_ago', 2, name)),
        );
        expect(adHoc?.status).toBe(200);
        expect(saved?.status).toBe(201);
        expect(saved?.body.filters.conditions[0].unit).toBe(`${unit}s`);
      }
    }
  });
});

describe('/openapi.json', () => {
  it('lists the comparisons and units of a filter condition', async () => {
    const answer = await client(t.url)('GET', '/openapi.json');
    const text = JSON.stringify(answer.body.components.schemas.SegmentFilters);
    for (const name of ['doesnt_start_with', 'doesnt_end_with', 'greater_than_or_equal']) {
      expect(text).toContain(`"${name}"`);
    }
    for (const name of ['less_than_or_equal', 'between', 'not_between', '"second"', '"years"']) {
      expect(text).toContain(name);
    }
  });
});
