import type { FieldType } from './schemas.js';

/**
 * The organisation's own profile fields, shown after its custom values with
 * `source: "fixed"` (contract §13). They come from the company directory and are
 * read-only here: their keys cannot take a custom value nor name a definition.
 */
export const PROFILE_FIELDS = [
  { key: 'name', type: 'text' },
  { key: 'website', type: 'url' },
  { key: 'industry', type: 'text' },
  { key: 'size', type: 'text' },
  { key: 'founded', type: 'text' },
  { key: 'phone', type: 'text' },
  { key: 'email', type: 'email' },
] as const satisfies readonly { key: string; type: FieldType }[];

export type ProfileKey = (typeof PROFILE_FIELDS)[number]['key'];

const PROFILE_KEYS: ReadonlySet<string> = new Set(PROFILE_FIELDS.map((field) => field.key));

export const isProfileKey = (key: string): key is ProfileKey => PROFILE_KEYS.has(key);

/** The 422 problem of a request that tries to set, clear or define a profile field. */
export const readOnlyProblem = (key: string) =>
  `"${key}" is one of the organisation's own profile fields (from the company directory) ` +
  'and is read-only; choose another key for a custom field.';
