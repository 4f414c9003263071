import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { CustomFieldTable, Database, FieldOption, FieldRule } from '../db/schema.js';
import type { CreateCustomFieldBody } from './schemas.js';

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

/** Sets an organisation's value of a field (checked by the caller). */
export async function setCustomValue(
  db: Kysely<Database>,
  workspaceId: string,
  organisationId: string,
  key: string,
  value: unknown,
): Promise<void> {
  await db
    .insertInto('custom_field_values')
    .values({
      workspace_id: workspaceId,
      organisation_id: organisationId,
      key,
      value: JSON.stringify(value),
    })
    .onConflict((c) =>
      c.columns(['workspace_id', 'organisation_id', 'key']).doUpdateSet({
        value: JSON.stringify(value),
      }),
    )
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
