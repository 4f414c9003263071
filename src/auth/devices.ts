import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { newSecret, sha256 } from './browser-sessions.js';
import { DEVICE_COOKIE, setDeviceCookie } from './cookies.js';

// A year: a browser used now and then stays known; each sign-in with it renews it.
const LIFETIME_MS = 365 * 86_400_000;

/**
 * The browser's device cookie, when it names a browser that `userId` signed in with: its
 * hash, under which its failed sign-ins are counted; undefined otherwise.
 */
export async function knownDevice(
  db: Kysely<Database>,
  request: FastifyRequest,
  userId: string | undefined,
): Promise<Buffer | undefined> {
  const secret = request.cookies[DEVICE_COOKIE];
  if (!secret || !userId) return undefined;
  const idHash = sha256(secret);
  const row = await db
    .selectFrom('sign_in_devices')
    .select('id_hash')
    .where('id_hash', '=', idHash)
    .where('user_id', '=', userId)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  return row?.id_hash;
}

/** After a successful sign-in: the browser is known for the user from now on (or still). */
export async function rememberDevice(
  deps: { db: Kysely<Database>; config: Config },
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
): Promise<void> {
  const known = await knownDevice(deps.db, request, userId);
  const expiresAt = new Date(Date.now() + LIFETIME_MS);
  const secret = known ? (request.cookies[DEVICE_COOKIE] ?? '') : newSecret();
  await deps.db
    .insertInto('sign_in_devices')
    .values({ id_hash: sha256(secret), user_id: userId, expires_at: expiresAt })
    .onConflict((conflict) => conflict.column('id_hash').doUpdateSet({ expires_at: expiresAt }))
    .execute();
  setDeviceCookie(reply, deps.config, secret, expiresAt);
}
