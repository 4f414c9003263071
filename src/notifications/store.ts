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
): Promise<
  (Pick<RuleRow, 'workspace_id' | 'id' | 'name' | 'email_to'> & { owners: string[] }) | undefined
> {
  return (
    db
      .selectFrom('notification_rules as r')
      .select(['r.workspace_id', 'r.id', 'r.name', 'r.email_to'])
      // A to_owner rule also mails the members who own organisations (and may leave it).
      .select(
        sql<string[]>`CASE WHEN r.email_to_owner THEN ARRAY(
        SELECT u.email FROM workspace_members m JOIN users u ON u.id = m.user_id
        WHERE m.workspace_id = r.workspace_id
          AND NOT lower(u.email) = ANY(SELECT lower(x) FROM unnest(r.email_unsubscribed) x))
        ELSE '{}' END`.as('owners'),
      )
      .where('r.id', '=', id)
      .where('r.channel_type', '=', 'email')
      .executeTakeFirst()
  );
}

/**
 * Takes an address off an e-mail rule (compared case-insensitively), switching the rule off
 * when no address is left and it does not go to owners; an owner's address is remembered as
 * unsubscribed. Answers the rule's name, or undefined when there is no such rule.
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
      enabled = enabled AND (email_to_owner
        OR EXISTS (SELECT 1 FROM unnest(email_to) a WHERE lower(a) <> lower(${address}))),
      email_unsubscribed = CASE WHEN email_to_owner
        THEN array_append(email_unsubscribed, lower(${address})) ELSE email_unsubscribed END,
      updated_at = now()
    WHERE workspace_id = ${workspaceId} AND id = ${ruleId} AND channel_type = 'email'
    RETURNING name`.execute(db);
  return rows[0];
}

/** The name of a member's own digest of the organisations they own. */
export const MY_DIGEST = 'My accounts';

/** The member's "My accounts" digest: a daily e-mail digest they made of what they own. */
export function findMyDigest(
  db: Kysely<Database>,
  workspaceId: string,
  userId: string,
): Promise<RuleRow | undefined> {
  return db
    .selectFrom('notification_rules')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('created_by', '=', userId)
    .where('owner_id', '=', userId)
    .where('trigger', '=', 'digest.daily')
    .where('channel_type', '=', 'email')
    .where('name', '=', MY_DIGEST)
    .orderBy('created_at')
    .executeTakeFirst();
}

/**
 * Switches the member's "My accounts" digest on (made on first use, to their own address)
 * or off; answers it as stored.
 */
export async function saveMyDigest(
  db: Kysely<Database>,
  workspaceId: string,
  userId: string,
  change: { enabled: boolean; timezone?: string },
): Promise<RuleRow | undefined> {
  const user = await db
    .selectFrom('users')
    .select('email')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  const existing = await findMyDigest(db, workspaceId, userId);
  if (existing) {
    return updateRule(db, workspaceId, existing.id, {
      enabled: change.enabled,
      email_to: [user.email],
      ...(change.timezone !== undefined && { timezone: change.timezone }),
    });
  }
  if (!change.enabled) return undefined;
  return insertRule(db, workspaceId, {
    name: MY_DIGEST,
    enabled: true,
    trigger: 'digest.daily',
    segment_id: null,
    url_contains: null,
    owner_id: userId,
    created_by: userId,
    timezone: change.timezone ?? 'UTC',
    channel_type: 'email',
    email_to: [user.email],
    email_to_owner: false,
    email_unsubscribed: [],
    slack_url_encrypted: null,
    webhook_url: null,
    webhook_secret_encrypted: null,
  });
}
