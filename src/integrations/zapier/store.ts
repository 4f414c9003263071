import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** What a Zapier hook subscribes to (contract §18). */
export const ZAPIER_EVENTS = ['new_lead', 'new_session', 'contacts_revealed'] as const;
export type ZapierEvent = (typeof ZAPIER_EVENTS)[number];

/** A hook as Snitcher's API shows it. */
export interface ZapierHook {
  id: string;
  name: string;
  hookUrl: string;
  event: ZapierEvent;
}

const columns = ['id', 'name', 'hook_url as hookUrl', 'event'] as const;

export async function listZapierHooks(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<ZapierHook[]> {
  const rows = await db
    .selectFrom('zapier_hooks')
    .select(columns)
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows as ZapierHook[];
}

export async function createZapierHook(
  db: Kysely<Database>,
  workspaceId: string,
  hook: Omit<ZapierHook, 'id'>,
): Promise<ZapierHook> {
  const row = await db
    .insertInto('zapier_hooks')
    .values({
      workspace_id: workspaceId,
      id: randomUUID(),
      name: hook.name,
      hook_url: hook.hookUrl,
      event: hook.event,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
  return row as ZapierHook;
}

/** Removes the workspace's hook with its pending deliveries; whether there was one. */
export async function deleteZapierHook(
  db: Kysely<Database>,
  workspaceId: string,
  hookId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('zapier_hooks')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', hookId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
