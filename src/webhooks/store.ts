import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { decrypt, encrypt } from '../http/keys.js';
import type { WebhookEvent } from './outbox.js';

export interface WebhookConfig {
  url: string | null;
  secret: string;
  mode: 'session' | 'event';
  /** The kinds to send; null: every kind, including any added later. */
  events: WebhookEvent[] | null;
}

export async function findWebhookConfig(
  db: Kysely<Database>,
  key: Buffer,
  userId: string,
): Promise<WebhookConfig | undefined> {
  const row = await db
    .selectFrom('webhook_configs')
    .select(['url', 'secret_encrypted', 'mode', 'events'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    url: row.url,
    secret: decrypt(key, row.secret_encrypted),
    mode: row.mode as WebhookConfig['mode'],
    events: row.events as WebhookEvent[] | null,
  };
}

/** Saves the configuration; the secret is stored encrypted, never in the clear. */
export async function saveWebhookConfig(
  db: Kysely<Database>,
  key: Buffer,
  userId: string,
  config: WebhookConfig,
): Promise<void> {
  const values = {
    url: config.url,
    secret_encrypted: encrypt(key, config.secret),
    mode: config.mode,
    events: config.events,
    updated_at: new Date(),
  };
  await db
    .insertInto('webhook_configs')
    .values({ user_id: userId, ...values })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet(values))
    .execute();
}
