import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { LONGEST_WINDOW_SECONDS } from './sign-in-limits.js';

/**
 * Drops ended browser sessions, spent-by-time links, forgotten devices, and counted sign-in
 * failures and reset requests past their window.
 */
export async function removeExpiredSignIns(db: Kysely<Database>): Promise<void> {
  const now = new Date();
  await db.deleteFrom('browser_sessions').where('expires_at', '<=', now).execute();
  await db.deleteFrom('auth_links').where('expires_at', '<=', now).execute();
  await db.deleteFrom('sign_in_devices').where('expires_at', '<=', now).execute();
  await db
    .deleteFrom('sign_in_failures')
    .where('failed_at', '<', sql<Date>`now() - make_interval(secs => ${LONGEST_WINDOW_SECONDS})`)
    .execute();
}
