import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

let counter = 0;

/**
 * Runs `work` inside a savepoint of the transaction `trx`. When it fails, only its own
 * changes are rolled back, the transaction goes on, and the error is answered rather than
 * thrown (null when it succeeded); an error the rollback itself meets is thrown.
 */
export async function inSavepoint(
  trx: Kysely<Database>,
  work: () => Promise<unknown>,
): Promise<unknown> {
  const name = sql.id(`savepoint_${++counter}`);
  await sql`SAVEPOINT ${name}`.execute(trx);
  try {
    await work();
  } catch (error) {
    await sql`ROLLBACK TO SAVEPOINT ${name}`.execute(trx);
    return error;
  }
  await sql`RELEASE SAVEPOINT ${name}`.execute(trx);
  return null;
}
