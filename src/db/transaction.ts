import { type Kysely, sql } from 'kysely';

/**
 * A transaction on one connection whose BEGIN travels with its first locks, which saves a
 * round trip on the collector's write path (docs/performance.md).
 */
export class Transaction<DB> {
  private state: 'idle' | 'open' | 'committed' = 'idle';
  private pending: string[] = [];
  private last: string[] = [];

  constructor(private readonly connection: Kysely<DB>) {}

  /**
   * Takes locks with parameterless SQL (several statements may go in one round trip), so
   * the caller builds it only from values it has checked, such as numbers and UUIDs.
   */
  async lock(statements: string): Promise<void> {
    await this.send(statements);
  }

  /**
   * Locks (or settings of the transaction) to take first, sent with the transaction's next
   * statement rather than in a round trip of their own (parameterless SQL, as for `lock`).
   */
  lockFirst(statements: string): void {
    this.pending.push(statements);
  }

  /**
   * Statements to run last, sent with the COMMIT in one round trip (parameterless SQL, as
   * for `lock`, run in the order given): for rows that every transaction of its kind
   * touches (counters, rollups), whose locks are then held for no longer than the commit.
   */
  beforeCommit(statements: string): void {
    this.last.push(statements);
  }

  /** The connection, for statements inside the transaction (opened now if no lock did). */
  async db(): Promise<Kysely<DB>> {
    if (this.state === 'committed') throw new Error('The transaction has committed.');
    if (this.state === 'idle' || this.pending.length > 0) await this.send('');
    return this.connection;
  }

  async commit(): Promise<void> {
    const last = this.last.splice(0);
    if (this.state === 'open' || this.pending.length > 0 || last.length > 0) {
      await this.send([...last, 'COMMIT'].join('; '));
    }
    this.state = 'committed';
  }

  private async send(statements: string): Promise<void> {
    const all = [
      ...(this.state === 'idle' ? ['BEGIN'] : []),
      ...this.pending.splice(0),
      statements,
    ].filter((part) => part !== '');
    if (all.length === 0) return;
    await sql.raw(all.join('; ')).execute(this.connection);
    this.state = 'open';
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
