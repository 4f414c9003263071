import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { newSecret, sha256 } from './browser-sessions.js';

/** One-time links work for a day: long enough to open tomorrow morning, short enough to age out. */
export const RESET_HOURS = 24;
const LIFETIME_MS = { setup: 24 * 3_600_000, reset: RESET_HOURS * 3_600_000 } as const;

export type LinkKind = keyof typeof LIFETIME_MS;

/** A new one-time link's secret, for the first user (setup) or a user's new password (reset). */
export async function createLink(
  db: Kysely<Database>,
  kind: LinkKind,
  userId: string | null,
): Promise<string> {
  const secret = newSecret();
  await db
    .insertInto('auth_links')
    .values({
      secret_hash: sha256(secret),
      kind,
      user_id: userId,
      expires_at: new Date(Date.now() + LIFETIME_MS[kind]),
    })
    .execute();
  return secret;
}

/** The live link of that kind: its user (null for setup), or undefined. */
export async function findLink(
  db: Kysely<Database>,
  kind: LinkKind,
  secret: string,
): Promise<{ userId: string | null } | undefined> {
  const row = await db
    .selectFrom('auth_links')
    .select('user_id')
    .where('secret_hash', '=', sha256(secret))
    .where('kind', '=', kind)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  return row && { userId: row.user_id };
}

/** Spends a link; false when it was already spent (two tabs racing). */
export async function useLink(db: Kysely<Database>, secret: string): Promise<boolean> {
  const result = await db
    .deleteFrom('auth_links')
    .where('secret_hash', '=', sha256(secret))
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Once a user exists, setup links are worthless: they are all removed. */
export async function dropSetupLinks(db: Kysely<Database>): Promise<void> {
  await db.deleteFrom('auth_links').where('kind', '=', 'setup').execute();
}
