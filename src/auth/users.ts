import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sqlState } from '../db/failures.js';
import type { Database } from '../db/schema.js';
import { isEmailAddress } from '../http/email-address.js';
import { hashPassword } from './passwords.js';

export interface User {
  id: string;
  email: string;
  name: string;
  created_at: Date;
}

export class UserExistsError extends Error {}

const USER_COLUMNS = ['id', 'email', 'name', 'created_at'] as const;

/** A new user; its password (when given) is stored as an argon2id hash only. */
export async function createUser(
  db: Kysely<Database>,
  email: string,
  name = '',
  password?: string,
): Promise<User> {
  const normalised = email.trim();
  if (!isEmailAddress(normalised)) {
    throw new Error(`"${email}" is not an email address.`);
  }
  if (await findUserByEmail(db, normalised)) {
    throw new UserExistsError(`A user with the email ${normalised} already exists.`);
  }
  const passwordHash = password === undefined ? null : await hashPassword(password);
  try {
    return await db
      .insertInto('users')
      .values({
        id: randomUUID(),
        email: normalised,
        name: name.trim(),
        password_hash: passwordHash,
        password_changed_at: passwordHash ? new Date() : null,
      })
      .returning(USER_COLUMNS)
      .executeTakeFirstOrThrow();
  } catch (error) {
    // Made meanwhile by a request that checked at the same time (the address is unique).
    if (sqlState(error) === '23505') {
      throw new UserExistsError(`A user with the email ${normalised} already exists.`);
    }
    throw error;
  }
}

export async function findUserByEmail(
  db: Kysely<Database>,
  email: string,
): Promise<(User & { password_hash: string | null }) | undefined> {
  return db
    .selectFrom('users')
    .select([...USER_COLUMNS, 'password_hash'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .executeTakeFirst();
}

export async function findUser(db: Kysely<Database>, id: string): Promise<User | undefined> {
  return db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function countUsers(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Sets a new password and ends the user's browser sessions, except `keepSession` (the one
 * that asked for the change, when it did so signed in), and every personal access token of
 * the user (contract §12): a token taken with the old password must not outlive it.
 */
export async function setPassword(
  db: Kysely<Database>,
  userId: string,
  password: string,
  keepSession?: Buffer,
): Promise<void> {
  const passwordHash = await hashPassword(password);
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, password_changed_at: new Date() })
      .where('id', '=', userId)
      .execute();
    let ending = trx.deleteFrom('browser_sessions').where('user_id', '=', userId);
    if (keepSession) ending = ending.where('id_hash', '!=', keepSession);
    await ending.execute();
    await trx
      .updateTable('access_tokens')
      .set({ revoked_at: new Date() })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
  });
}
