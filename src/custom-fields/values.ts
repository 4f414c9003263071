import type { FieldOption, FieldRule } from '../db/schema.js';
import { EMAIL_MAX_LENGTH, isEmailAddress } from '../http/email-address.js';
import { isDay } from '../http/validation.js';
import { compilePattern } from './pattern.js';
import type { FieldType } from './schemas.js';
import type { CustomFieldRow } from './store.js';

/** The longest value of a `text` and of a `url` field (a browser's practical URL limit). */
const VALUE_LIMITS = { text: 10_000, url: 2_048 } as const;

/** The value to store, or the problem with it (checked by type, options and rules). */
export function checkValue(
  field: CustomFieldRow,
  value: unknown,
): { value: unknown } | { problem: string } {
  const problem = (text: string) => ({ problem: `The value ${text}.` });
  const options = (field.options as FieldOption[]).map((option) => option.key);
  switch (field.type) {
    case 'text':
      if (typeof value !== 'string' || value.length > VALUE_LIMITS.text) {
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
      if (
        typeof value !== 'string' ||
        value.length > VALUE_LIMITS.url ||
        !/^https?:\/\/[^\s/]+/i.test(value)
      ) {
        return problem('must be an http or https URL of at most 2,048 characters');
      }
      break;
    case 'email':
      if (typeof value !== 'string' || !isEmailAddress(value)) {
        return problem(`must be an email address of at most ${EMAIL_MAX_LENGTH} characters`);
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
    case 'pattern': {
      if (typeof value !== 'string') return null;
      const compiled = compilePattern(String(limit));
      // A rule saved before patterns were RE2's may not compile: refuse rather than skip it.
      if ('problem' in compiled) return "cannot be checked: the field's pattern is not supported";
      return compiled.pattern.test(value) ? null : `must match ${limit}`;
    }
    default:
      return null;
  }
}

/** A field with a `required` rule cannot be cleared. */
export const isRequired = (field: CustomFieldRow) =>
  (field.rules as FieldRule[]).some((rule) => rule.type === 'required');

/** `""`, `null` and `[]`: a bulk PATCH refuses them, as clearing is DELETE's job. */
export const isEmptyValue = (value: unknown) =>
  value === null || value === '' || (Array.isArray(value) && value.length === 0);

/**
 * The type of a field made for a value with no definition yet (contract §13). Only the
 * JSON type and the text's form count: `"42"` is text, 42 a number. A list or an object
 * cannot be guessed (options would be needed), so it gets no type.
 */
export function inferType(value: unknown): FieldType | null {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return 'number';
  if (typeof value !== 'string') return null;
  if (isDay(value)) return 'date';
  // The form of a URL (two linear tests: one pattern for both would backtrack); its
  // length is then checked as for any url field.
  if (/^https?:\/\/[^\s/?#]/i.test(value) && !/\s/.test(value)) return 'url';
  if (isEmailAddress(value)) return 'email';
  return 'text';
}

/** `annual_revenue` → `Annual revenue`: the name of a field made by a bulk PATCH. */
export const nameFromKey = (key: string) => {
  const words = key.split('_').filter(Boolean).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};
