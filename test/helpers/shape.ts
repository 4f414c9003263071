import { expect } from 'vitest';

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/**
 * Asserts that `value` has exactly these keys, each of these JSON types
 * (`'string|null'` allows either).
 */
export function expectShape(value: unknown, shape: Record<string, string>): void {
  expect(typeOf(value)).toBe('object');
  const record = value as Record<string, unknown>;
  expect(Object.keys(record).sort()).toEqual(Object.keys(shape).sort());
  for (const [key, expected] of Object.entries(shape)) {
    const allowed = expected.split('|');
    const actual = typeOf(record[key]);
    const ok = allowed.includes(actual) || (actual === 'integer' && allowed.includes('number'));
    expect(ok, `${key} is ${actual}, expected ${expected}`).toBe(true);
  }
}

export const WORKSPACE_SHAPE = {
  uuid: 'string',
  name: 'string',
  url: 'string',
  tracking_script_id: 'string',
  tracking_script_snippet: 'string',
  available_tags: 'array',
  status: 'string',
  usage_limit: 'string',
};

export const PAGE_SHAPE = {
  current_page: 'integer',
  data: 'array',
  first_page_url: 'string',
  from: 'integer',
  last_page: 'integer',
  last_page_url: 'string',
  next_page_url: 'string|null',
  path: 'string',
  per_page: 'integer',
  prev_page_url: 'string|null',
  to: 'integer',
  total: 'integer',
  success: 'boolean',
};

export const CUSTOM_FIELD_SHAPE = {
  identifier: 'string',
  key: 'string',
  name: 'string',
  entity_type: 'string',
  type: 'string',
  description: 'string',
  group: 'string',
  is_visible: 'boolean',
  source: 'string',
  rules: 'array',
  is_system: 'boolean',
  options: 'array',
  visible_in_spotter: 'boolean',
};
