import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isEmailAddress } from '../http/email-address.js';

export interface Operator {
  id: string;
  email: string;
  name: string;
}

export class OperatorExistsError extends Error {}

export async function createOperator(
  db: Kysely<Database>,
  email: string,
  name = '',
): Promise<Operator> {
  const normalised = email.trim();
  if (!isEmailAddress(normalised)) {
    throw new Error(`"${email}" is not an email address.`);
  }
  if (await findOperatorByEmail(db, normalised)) {
    throw new OperatorExistsError(`An operator with the email ${normalised} already exists.`);
  }
  return db
    .insertInto('operators')
    .values({ id: randomUUID(), email: normalised, name })
    .returning(['id', 'email', 'name'])
    .executeTakeFirstOrThrow();
}

export async function findOperatorByEmail(
  db: Kysely<Database>,
  email: string,
): Promise<Operator | undefined> {
  return db
    .selectFrom('operators')
    .select(['id', 'email', 'name'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .executeTakeFirst();
}

export async function countOperators(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('operators')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
