import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { CustomFieldTable, Database, FieldOption, FieldRule } from '../db/schema.js';
import { withProfiles } from '../enrich/profile-sql.js';
import type { CreateCustomFieldBody, FieldType } from './schemas.js';

export type CustomFieldRow = Selectable<CustomFieldTable>;

export async function listCustomFields(db: Kysely<Database>, workspaceId: string) {
  return db
    .selectFrom('custom_fields')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('key')
    .execute();
}

export async function findCustomField(db: Kysely<Database>, workspaceId: string, key: string) {
  return db
    .selectFrom('custom_fields')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Creates the definition; undefined when the key is taken in this workspace. */
export async function createCustomField(
  db: Kysely<Database>,
  workspaceId: string,
  body: CreateCustomFieldBody,
): Promise<CustomFieldRow | undefined> {
  return db
    .insertInto('custom_fields')
    .values({
      workspace_id: workspaceId,
      key: body.key,
      identifier: randomUUID(),
      name: body.name.trim(),
      type: body.type,
      description: body.description ?? '',
      group: body.group ?? 'custom',
      is_visible: body.is_visible ?? true,
      source: 'manual',
      rules: JSON.stringify(body.field_rules ?? []),
      is_system: false,
      options: JSON.stringify(body.options ?? []),
      visible_in_spotter: body.visible_in_spotter ?? false,
    })
    .onConflict((conflict) => conflict.columns(['workspace_id', 'key']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export interface CustomFieldChanges {
  name?: string;
  description?: string;
  group?: string;
  is_visible?: boolean;
  visible_in_spotter?: boolean;
  rules?: FieldRule[];
  options?: FieldOption[];
}

export async function updateCustomField(
  db: Kysely<Database>,
  workspaceId: string,
  key: string,
  changes: CustomFieldChanges,
): Promise<CustomFieldRow | undefined> {
  const { rules, options, ...plain } = changes;
  return db
    .updateTable('custom_fields')
    .set({
      ...plain,
      ...(rules && { rules: JSON.stringify(rules) }),
      ...(options && { options: JSON.stringify(options) }),
    })
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteCustomField(db: Kysely<Database>, workspaceId: string, key: string) {
  const result = await db
    .deleteFrom('custom_fields')
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .where('is_system', '=', false)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * The workspace's definitions of these keys. `lock` takes them key-share for the rest of
 * the transaction, so a definition deleted meanwhile cannot leave a value without one.
 */
export async function findCustomFields(
  db: Kysely<Database>,
  workspaceId: string,
  keys: string[],
  options: { lock?: boolean } = {},
): Promise<CustomFieldRow[]> {
  if (keys.length === 0) return [];
  const query = db
    .selectFrom('custom_fields')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key', 'in', keys)
    .orderBy('key');
  return (options.lock ? query.forKeyShare() : query).execute();
}

/**
 * Defines fields for values given without a definition (a bulk value PATCH): defaults as
 * POST's, `source` manual. Keys another request defined meanwhile are left as they are
 * and not returned; the caller reads them.
 */
export async function defineFieldsForValues(
  db: Kysely<Database>,
  workspaceId: string,
  fields: { key: string; name: string; type: FieldType }[],
): Promise<CustomFieldRow[]> {
  if (fields.length === 0) return [];
  // In key order, so two requests defining the same keys wait for each other, not deadlock.
  const sorted = [...fields].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return db
    .insertInto('custom_fields')
    .values(
      sorted.map((field) => ({
        workspace_id: workspaceId,
        key: field.key,
        identifier: randomUUID(),
        name: field.name,
        type: field.type,
        description: '',
        group: 'custom',
        is_visible: true,
        source: 'manual',
        rules: JSON.stringify([]),
        is_system: false,
        options: JSON.stringify([]),
        visible_in_spotter: false,
      })),
    )
    .onConflict((conflict) => conflict.columns(['workspace_id', 'key']).doNothing())
    .returningAll()
    .execute();
}

/**
 * Sets an organisation's values of these fields (checked by the caller) in one statement,
 * in key order so that concurrent writers lock the rows alike. Answers when each was set.
 */
export async function setCustomValues(
  db: Kysely<Database>,
  workspaceId: string,
  organisationId: string,
  values: { key: string; value: unknown }[],
): Promise<Map<string, Date>> {
  if (values.length === 0) return new Map();
  const sorted = [...values].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const rows = await db
    .insertInto('custom_field_values')
    .values(
      sorted.map(({ key, value }) => ({
        workspace_id: workspaceId,
        organisation_id: organisationId,
        key,
        value: JSON.stringify(value),
      })),
    )
    .onConflict((c) =>
      c.columns(['workspace_id', 'organisation_id', 'key']).doUpdateSet((eb) => ({
        value: eb.ref('excluded.value'),
        updated_at: sql<Date>`now()`,
      })),
    )
    .returning(['key', 'updated_at'])
    .execute();
  return new Map(rows.map((row) => [row.key, row.updated_at]));
}

/** An organisation's custom values with their definitions, in the definitions' order. */
export async function listCustomValues(
  db: Kysely<Database>,
  workspaceId: string,
  organisationId: string,
) {
  return db
    .selectFrom('custom_field_values as v')
    .innerJoin('custom_fields as f', (join) =>
      join.onRef('f.workspace_id', '=', 'v.workspace_id').onRef('f.key', '=', 'v.key'),
    )
    .select(['f.identifier', 'f.key', 'f.type', 'v.value', 'v.updated_at'])
    .where('v.workspace_id', '=', workspaceId)
    .where('v.organisation_id', '=', organisationId)
    .orderBy('f.created_at')
    .orderBy('f.key')
    .execute();
}

/** Clears an organisation's value of a field. */
export async function clearCustomValue(
  db: Kysely<Database>,
  workspaceId: string,
  organisationId: string,
  key: string,
): Promise<void> {
  await db
    .deleteFrom('custom_field_values')
    .where('workspace_id', '=', workspaceId)
    .where('organisation_id', '=', organisationId)
    .where('key', '=', key)
    .execute();
}

/**
 * The organisation's own profile (as the Organisation shows it) and when it last changed
 * (the directory's entry or the homepage's read); undefined when the workspace has no such
 * organisation. `lock` keeps it from being deleted until the transaction ends.
 */
export async function findOrganisationProfile(
  db: Kysely<Database>,
  workspaceId: string,
  organisationId: string,
  options: { lock?: boolean } = {},
) {
  const query = withProfiles(db, workspaceId)
    // The later of the directory's last change and the homepage's last read.
    .select(sql<Date | null>`greatest(c.updated_at, w.read_at)`.as('profile_updated_at'))
    .where('o.id', '=', organisationId);
  return (options.lock ? query.forKeyShare('o') : query).executeTakeFirst();
}
export type OrganisationProfile = NonNullable<Awaited<ReturnType<typeof findOrganisationProfile>>>;
