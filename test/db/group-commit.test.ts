import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../../src/db/connect.js';
import {
  isTransient,
  mayBeInTheData,
  type WriteFailure,
  writeFailure,
} from '../../src/db/failures.js';
import { GroupCommit } from '../../src/db/group-commit.js';
import { inTransaction } from '../../src/db/transaction.js';
import { createTestDatabase } from '../helpers/app.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('GroupCommit', () => {
  it('puts callers that arrive together into one write and settles them after it', async () => {
    const writes: number[][] = [];
    const committer = new GroupCommit<number>(
      async (items) => {
        await tick();
        writes.push(items);
      },
      { maxItems: 100, concurrency: 1 },
    );
    const settled: number[] = [];
    await Promise.all([1, 2, 3].map((n) => committer.add([n]).then(() => settled.push(n))));
    expect(writes).toEqual([[1, 2, 3]]);
    expect(settled.sort()).toEqual([1, 2, 3]);
  });

  it('batches what arrives during a write into the next one, within maxItems', async () => {
    const writes: number[][] = [];
    const committer = new GroupCommit<number>(
      async (items) => {
        writes.push(items);
        await tick();
      },
      { maxItems: 3, concurrency: 1 },
    );
    const first = committer.add([0]);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [1, 2, 3, 4].map((n) => committer.add([n]));
    await Promise.all([first, ...rest]);
    expect(writes).toEqual([[0], [1, 2, 3], [4]]);
  });

  it('rejects every caller of a failed write, and goes on with the next', async () => {
    let fail = true;
    const committer = new GroupCommit<number>(
      async () => {
        await tick();
        if (fail) throw new Error('disk full');
      },
      { maxItems: 100, concurrency: 1 },
    );
    const results = await Promise.allSettled([committer.add([1]), committer.add([2])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(committer.add([3])).resolves.toBeUndefined();
  });

  it('runs at most `concurrency` writes at once, and flush waits for them', async () => {
    let running = 0;
    let most = 0;
    const committer = new GroupCommit<number>(
      async () => {
        running++;
        most = Math.max(most, running);
        await tick();
        running--;
      },
      { maxItems: 1, concurrency: 2 },
    );
    const all = Array.from({ length: 6 }, (_, n) => committer.add([n]));
    await committer.flush();
    expect(running).toBe(0);
    await Promise.all(all);
    expect(most).toBe(2);
  });
});

describe('GroupCommit over PostgreSQL', () => {
  let database: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const made = await createTestDatabase();
    drop = made.drop;
    database = connect(made.url);
    await sql`CREATE TABLE numbers (n int NOT NULL CHECK (n <> 13));
      CREATE TABLE counter (total int NOT NULL); INSERT INTO counter VALUES (0)`.execute(
      database.db,
    );
  });
  afterAll(async () => {
    await database.close();
    await drop();
  });

  const insertNumbers = (items: number[]) =>
    inTransaction(database.db, async (tx) => {
      await sql`INSERT INTO numbers SELECT unnest(${items}::int[])`.execute(await tx.db());
    });

  it('splits a group that fails for its data, so only the caller whose items fail gets the error', async () => {
    const splits: WriteFailure[] = [];
    const writes: number[] = [];
    const committer = new GroupCommit<number>(insertNumbers, {
      maxItems: 100,
      concurrency: 1,
      split: (error) => mayBeInTheData(writeFailure(error)),
      onSplit: (error) => splits.push(writeFailure(error)),
      onWrite: (items) => writes.push(items),
    });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => committer.add([i + 1])),
    );
    expect(results.map((r) => r.status)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i + 1 === 13 ? 'rejected' : 'fulfilled')),
    );
    expect((results[12] as PromiseRejectedResult).reason.code).toBe('23514');
    const { rows } = await sql<{ n: number }>`SELECT n FROM numbers ORDER BY n`.execute(
      database.db,
    );
    expect(rows.map((row) => row.n)).toEqual(
      [...Array(20).keys()].map((i) => i + 1).filter((n) => n !== 13),
    );
    // One group of 20, then halves down to the single bad caller: about 2 log2(20) writes.
    expect(writes[0]).toBe(20);
    expect(splits.length).toBeGreaterThanOrEqual(4);
    expect(new Set(splits)).toEqual(new Set(['constraint']));
    expect(writes.length).toBeLessThanOrEqual(1 + 2 * splits.length);
  });

  it('writes a group again after a serialization failure, and commits it once', async () => {
    const retries: WriteFailure[] = [];
    let attempts = 0;
    const committer = new GroupCommit<number>(
      (items) =>
        database.db
          .transaction()
          .setIsolationLevel('repeatable read')
          .execute(async (trx) => {
            await sql`SELECT total FROM counter`.execute(trx); // the snapshot
            // Another transaction changes the row in between, on the first attempt.
            if (attempts++ === 0)
              await sql`UPDATE counter SET total = total + 100`.execute(database.db);
            await sql`UPDATE counter SET total = total + ${items.length}`.execute(trx);
          }),
      {
        maxItems: 100,
        concurrency: 1,
        retry: { when: (error) => isTransient(writeFailure(error)), attempts: 3, delayMs: 5 },
        onRetry: (error) => retries.push(writeFailure(error)),
      },
    );
    await Promise.all([committer.add([1]), committer.add([2]), committer.add([3])]);
    expect(retries).toEqual(['serialization']);
    const { rows } = await sql<{ total: number }>`SELECT total FROM counter`.execute(database.db);
    expect(rows[0]?.total).toBe(103);
  });

  it('neither splits nor retries when the database cannot be reached', async () => {
    const unreachable = connect('postgres://postgres@127.0.0.1:1/none');
    const splits: unknown[] = [];
    const committer = new GroupCommit<number>(
      (items) => sql`SELECT ${items.length}`.execute(unreachable.db).then(() => {}),
      {
        maxItems: 100,
        concurrency: 1,
        retry: { when: (error) => isTransient(writeFailure(error)), attempts: 3, delayMs: 5 },
        split: (error) => mayBeInTheData(writeFailure(error)),
        onSplit: (error) => splits.push(error),
        onRetry: (error) => splits.push(error),
      },
    );
    const results = await Promise.allSettled([1, 2, 3, 4].map((n) => committer.add([n])));
    await unreachable.close();
    expect(results.map((r) => r.status)).toEqual(Array(4).fill('rejected'));
    expect(writeFailure((results[0] as PromiseRejectedResult).reason)).toBe('unavailable');
    expect(splits).toEqual([]);
  });
});
