import type { FieldOption, FieldRule } from '../db/schema.js';
import { isDay } from '../http/validation.js';
import type { CustomFieldRow } from './store.js';

/** The value to store, or the problem with it (checked by type, options and rules). */
export function checkValue(
  field: CustomFieldRow,
  value: unknown,
): { value: unknown } | { problem: string } {
  const problem = (text: string) => ({ problem: `The value ${text}.` });
  const options = (field.options as FieldOption[]).map((option) => option.key);
  switch (field.type) {
    case 'text':
      if (typeof value !== 'string' || value.length > 10_000) {
        return problem('must be text of at most 10,000 characters');
      }
      break;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return problem('must be a number');
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return problem('must be true or false');
      break;
    case 'date':
      if (!isDay(value)) return problem('must be a date as YYYY-MM-DD');
      break;
    case 'select':
      if (typeof value !== 'string' || !options.includes(value)) {
        return problem(`must be one of the field's options: ${options.join(', ')}`);
      }
      break;
    case 'multi_select':
      if (
        !Array.isArray(value) ||
        value.some((item) => typeof item !== 'string' || !options.includes(item)) ||
        new Set(value).size !== value.length
      ) {
        return problem(`must be a list of distinct options: ${options.join(', ')}`);
      }
      break;
    case 'url':
      if (typeof value !== 'string' || !/^https?:\/\/[^\s/]+/i.test(value)) {
        return problem('must be an http or https URL');
      }
      break;
    case 'email':
      if (typeof value !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) {
        return problem('must be an email address');
      }
      break;
  }
  for (const rule of field.rules as FieldRule[]) {
    const broken = breaks(rule, value);
    if (broken) return problem(broken);
  }
  return { value };
}

function breaks(rule: FieldRule, value: unknown): string | null {
  const limit = rule.config.value;
  const length = typeof value === 'string' || Array.isArray(value) ? value.length : null;
  switch (rule.type) {
    case 'required':
      return length === 0 ? 'is required and must not be empty' : null;
    case 'min_length':
      return length !== null && length < Number(limit) ? `must be at least ${limit} long` : null;
    case 'max_length':
      return length !== null && length > Number(limit) ? `must be at most ${limit} long` : null;
    case 'min':
      return typeof value === 'number' && value < Number(limit)
        ? `must be at least ${limit}`
        : null;
    case 'max':
      return typeof value === 'number' && value > Number(limit) ? `must be at most ${limit}` : null;
    case 'pattern':
      return typeof value === 'string' && !new RegExp(String(limit)).test(value)
        ? `must match ${limit}`
        : null;
    default:
      return null;
  }
}

/** A field with a `required` rule cannot be cleared. */
export const isRequired = (field: CustomFieldRow) =>
  (field.rules as FieldRule[]).some((rule) => rule.type === 'required');
