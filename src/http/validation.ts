import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldErrors } from './errors.js';
import { type BadInput, findBadInput, MAX_TEXT_PARAMETER } from './input.js';

const options = {
  allErrors: true,
  removeAdditional: true,
  useDefaults: true,
  strict: false,
} as const;

// Bodies are JSON and must carry the right types (`"yes"` or `null` is not a boolean);
// query strings and path parameters are text and are coerced.
const bodyAjv = addFormats.default(new Ajv.default({ ...options, coerceTypes: false }));
const textAjv = addFormats.default(new Ajv.default({ ...options, coerceTypes: 'array' }));

/**
 * Every part of every request (body, query string, path) is walked for what PostgreSQL cannot
 * store and for nesting too deep to recurse into, before Ajv (which recurses) looks at it.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
  const limits = httpPart === 'body' ? {} : { maxLength: MAX_TEXT_PARAMETER };
  const check = (data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const bad = findBadInput(data, limits);
    check.errors = bad ? [asAjvError(bad)] : null;
    if (bad) return false;
    const valid = validate(data, context);
    check.errors = validate.errors ?? null;
    return valid;
  };
  // Fastify passes Ajv's context (so a root value can be coerced) when this is set.
  check.schemaEnv = validate.schemaEnv;
  check.errors = null as ErrorObject[] | null;
  return check;
};

/** A refused value in Ajv's shape, so that it reaches clients as every field error does. */
function asAjvError({ field, problem }: BadInput): ErrorObject {
  return {
    keyword: 'storable',
    instancePath: field ? `/${field.replaceAll('.', '/')}` : '',
    schemaPath: '#',
    params: {},
    message: problem,
  };
}

/** Turns Ajv's errors into the contract's `errors` object, keyed by dotted field name. */
export function fieldErrors(validation: ErrorObject[]): FieldErrors {
  const errors: FieldErrors = {};
  const unions = new Set(
    validation.filter((error) => error.keyword === 'anyOf').map((error) => error.instancePath),
  );
  for (const error of validation) {
    // A union (e.g. string or null) reports each branch; say it once, in the union's words.
    if (unions.has(error.instancePath) && error.keyword !== 'anyOf') continue;
    const segments = error.instancePath.split('/').filter(Boolean);
    if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
    const field = segments.join('.') || 'body';
    const problem = describe(error, segments.at(-1) ?? 'body');
    const list = errors[field] ?? [];
    if (!list.includes(problem)) list.push(problem);
    errors[field] = list;
  }
  return errors;
}

function describe(error: ErrorObject, name: string): string {
  const label = `The ${name.replaceAll('_', ' ')} field`;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${label} is required.`;
    case 'type':
      return `${label} must be ${article(String(p.type))}.`;
    case 'minimum':
      return `${label} must be at least ${p.limit}.`;
    case 'maximum':
      return `${label} must not be greater than ${p.limit}.`;
    case 'minLength':
      return p.limit === 1
        ? `${label} must not be empty.`
        : `${label} must be at least ${p.limit} characters.`;
    case 'maxLength':
      return `${label} must not be greater than ${p.limit} characters.`;
    case 'maxItems':
      return `${label} must not have more than ${p.limit} items.`;
    case 'enum':
      return `${label} must be one of: ${(p.allowedValues as unknown[]).join(', ')}.`;
    case 'format':
      return `${label} must be a valid ${p.format === 'uri' ? 'URL' : String(p.format)}.`;
    case 'pattern':
      return `${label} has an invalid format.`;
    case 'anyOf':
      return `${label} has an invalid value.`;
    default:
      return `${label} ${error.message ?? 'is invalid'}.`;
  }
}

function article(type: string): string {
  const names: Record<string, string> = {
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
    string: 'a string',
    object: 'an object',
    array: 'an array',
    null: 'null',
  };
  return type
    .split(',')
    .map((part) => names[part] ?? part)
    .join(' or ');
}

/**
 * Whether `value` is a real calendar day written YYYY-MM-DD (2026-02-30 is not), in years
 * 0001..9999: PostgreSQL has no year 0, and five-digit years are not YYYY.
 */
export function isDay(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  if (value.startsWith('0000')) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** Whether a path id can name anything (contract §1: ids that are not UUIDs are 404). */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
