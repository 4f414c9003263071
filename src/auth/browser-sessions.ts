import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Contract §12: a browser session lasts 30 days and is renewed on use. */
export const SESSION_DAYS = 30;
const LIFETIME_MS = SESSION_DAYS * 86_400_000;
// Renewed at most hourly: a dashboard makes many requests, each need not write.
const RENEW_AFTER_MS = 3_600_000;

export interface BrowserSession {
  idHash: Buffer;
  userId: string;
  csrf: string;
  expiresAt: Date;
  /** Whether this use moved its expiry (the cookie should follow). */
  renewed: boolean;
}

export const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** A new session; answers the cookie's secret (stored only as its hash) and the CSRF value. */
export async function startBrowserSession(
  db: Kysely<Database>,
  userId: string,
): Promise<{ secret: string; csrf: string; expiresAt: Date }> {
  const secret = newSecret();
  const csrf = newSecret(24);
  const expiresAt = new Date(Date.now() + LIFETIME_MS);
  await db
    .insertInto('browser_sessions')
    .values({ id_hash: sha256(secret), user_id: userId, csrf, expires_at: expiresAt })
    .execute();
  return { secret, csrf, expiresAt };
}

/** The live session a cookie names, renewed when due; undefined when unknown or expired. */
export async function findBrowserSession(
  db: Kysely<Database>,
  secret: string,
): Promise<BrowserSession | undefined> {
  const idHash = sha256(secret);
  const row = await db
    .selectFrom('browser_sessions')
    .select(['user_id', 'csrf', 'expires_at'])
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  if (!row) return undefined;
  let expiresAt = row.expires_at;
  const renewed = expiresAt.getTime() - Date.now() < LIFETIME_MS - RENEW_AFTER_MS;
  if (renewed) {
    expiresAt = new Date(Date.now() + LIFETIME_MS);
    await db
      .updateTable('browser_sessions')
      .set({ expires_at: expiresAt })
      .where('id_hash', '=', idHash)
      .execute();
  }
  return { idHash, userId: row.user_id, csrf: row.csrf, expiresAt, renewed };
}

export async function endBrowserSession(db: Kysely<Database>, idHash: Buffer): Promise<void> {
  await db.deleteFrom('browser_sessions').where('id_hash', '=', idHash).execute();
}
