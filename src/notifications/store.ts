import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, NotificationDeliveryTable, NotificationRuleTable } from '../db/schema.js';

export type RuleRow = Selectable<NotificationRuleTable>;
export type DeliveryRow = Selectable<NotificationDeliveryTable>;

/** What a rule stores; the channel's secrets arrive encrypted. */
export type RuleValues = Omit<RuleRow, 'workspace_id' | 'id' | 'created_at' | 'updated_at'>;

export function listRules(db: Kysely<Database>, workspaceId: string): Promise<RuleRow[]> {
  return db
    .selectFrom('notification_rules')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findRule(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
): Promise<RuleRow | undefined> {
  return db
    .selectFrom('notification_rules')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function insertRule(
  db: Kysely<Database>,
  workspaceId: string,
  values: RuleValues,
): Promise<RuleRow> {
  return db
    .insertInto('notification_rules')
    .values({ workspace_id: workspaceId, id: randomUUID(), ...values })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateRule(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
  values: Partial<RuleValues>,
): Promise<RuleRow | undefined> {
  return db
    .updateTable('notification_rules')
    .set({ ...values, updated_at: new Date() })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the rule with its deliveries and alert history (foreign keys cascade). */
export async function deleteRule(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('notification_rules')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Whether the workspace has an enabled rule triggered by what the collector writes. */
export async function alertsWanted(db: Kysely<Database>, workspaceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('notification_rules')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('enabled', '=', true)
    .where('trigger', 'in', ['organisation.visited', 'page.visited'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** A page of the rule's deliveries, newest first, and how many it has in all. */
export async function ruleDeliveries(
  db: Kysely<Database>,
  workspaceId: string,
  ruleId: string,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: DeliveryRow[] }> {
  const scope = db
    .selectFrom('notification_deliveries')
    .where('workspace_id', '=', workspaceId)
    .where('rule_id', '=', ruleId);
  const [count, rows] = await Promise.all([
    scope.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
    scope
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
  ]);
  return { total: Number(count.total), rows };
}

export function findDelivery(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('notification_deliveries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** An e-mail rule by its id alone (an unsubscribe link names no workspace). */
export function findEmailRule(
  db: Kysely<Database>,
  id: string,
): Promise<Pick<RuleRow, 'workspace_id' | 'id' | 'name' | 'email_to'> | undefined> {
  return db
    .selectFrom('notification_rules')
    .select(['workspace_id', 'id', 'name', 'email_to'])
    .where('id', '=', id)
    .where('channel_type', '=', 'email')
    .executeTakeFirst();
}

/**
 * Takes an address off an e-mail rule (compared case-insensitively), switching the rule off
 * when no address is left. Answers the rule's name, or undefined when there is no such rule.
 */
export async function removeAddress(
  db: Kysely<Database>,
  workspaceId: string,
  ruleId: string,
  address: string,
): Promise<{ name: string } | undefined> {
  const { rows } = await sql<{ name: string }>`
    UPDATE notification_rules SET
      email_to = ARRAY(SELECT a FROM unnest(email_to) a WHERE lower(a) <> lower(${address})),
      enabled = enabled AND EXISTS (SELECT 1 FROM unnest(email_to) a WHERE lower(a) <> lower(${address})),
      updated_at = now()
    WHERE workspace_id = ${workspaceId} AND id = ${ruleId} AND channel_type = 'email'
    RETURNING name`.execute(db);
  return rows[0];
}
