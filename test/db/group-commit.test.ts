import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/db/group-commit.js';

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
