import { type Kysely, sql } from 'kysely';

/**
 * A transaction on one connection whose BEGIN travels with its first locks, which saves a
 * round trip on the collector's write path (docs/performance.md).
 */
export class Transaction<DB> {
  private state: 'idle' | 'open' | 'committed' = 'idle';

  constructor(private readonly connection: Kysely<DB>) {}

  /**
   * Takes locks with parameterless SQL (several statements may go in one round trip), so
   * the caller builds it only from values it has checked, such as numbers and UUIDs.
   */
  async lock(statements: string): Promise<void> {
    await sql
      .raw(this.state === 'idle' ? `BEGIN; ${statements}` : statements)
      .execute(this.connection);
    this.state = 'open';
  }

  /** The connection, for statements inside the transaction (opened now if no lock did). */
  async db(): Promise<Kysely<DB>> {
    if (this.state === 'committed') throw new Error('The transaction has committed.');
    if (this.state === 'idle') await this.lock('');
    return this.connection;
  }

  async commit(): Promise<void> {
    if (this.state === 'open') await sql`COMMIT`.execute(this.connection);
    this.state = 'committed';
  }
}

/** Runs `work` in one transaction on one connection: committed after it, rolled back if it throws. */
export async function inTransaction<DB, T>(
  db: Kysely<DB>,
  work: (tx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (connection) => {
    const tx = new Transaction(connection);
    try {
      const result = await work(tx);
      await tx.commit();
      return result;
    } catch (error) {
      // The work's own error is the one to report; a failed rollback ends with the connection.
      await sql`ROLLBACK`.execute(connection).catch(() => {});
      throw error;
    }
  });
}
