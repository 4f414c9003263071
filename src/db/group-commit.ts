import { setTimeout as sleep } from 'node:timers/promises';

export interface GroupCommitOptions {
  /** Items per write; a caller with more than this is written alone. */
  maxItems: number;
  /** Writes at once. */
  concurrency: number;
  /**
   * A write that fails with an error `when` accepts (say, a deadlock) is done again, up to
   * `attempts` more times, each after a random pause below `delayMs` × 2^attempt.
   */
  retry?: { when: (error: unknown) => boolean; attempts: number; delayMs: number };
  /**
   * Whether a failed write is worth splitting: its callers are then written in two halves,
   * and so on down to single callers, so that only the callers whose items fail get the error.
   */
  split?: (error: unknown) => boolean;
  onWrite?: (items: number, ms: number) => void;
  onRetry?: (error: unknown) => void;
  onSplit?: (error: unknown) => void;
}

interface Caller<T> {
  items: T[];
  settle: (error?: unknown) => void;
}

/**
 * Group commit: many callers' items share one write (one transaction), and each caller's
 * promise settles only after the write that holds its items has committed or failed.
 *
 * Up to `concurrency` writes run at once; items that arrive meanwhile wait and all go into
 * the next write that starts. Under light load a write holds one request; under heavy load
 * it holds many, which is what makes durable acknowledgements cheap. It knows nothing of
 * what it writes.
 */
export class GroupCommit<T> {
  private waiting: Caller<T>[] = [];
  private active = 0;
  private scheduled = false;
  private idle: (() => void)[] = [];

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: GroupCommitOptions,
  ) {}

  /** Resolves once `items` are committed; rejects with the write's error otherwise. */
  add(items: T[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ items, settle: (error) => (error ? reject(error) : resolve()) });
      this.schedule();
    });
  }

  /** Waits until everything added so far is written. */
  flush(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.active >= this.options.concurrency) return;
    this.scheduled = true;
    // Let the requests that arrive in the same tick join this write.
    setImmediate(() => {
      this.scheduled = false;
      void this.start();
    });
  }

  private async start(): Promise<void> {
    if (this.waiting.length === 0 || this.active >= this.options.concurrency) return;
    const group = this.take();
    this.active++;
    await this.commit(group);
    this.active--;
    if (this.waiting.length > 0) this.schedule();
    else if (this.active === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Writes the callers' items together; when that fails and is worth it, each half apart. */
  private async commit(group: Caller<T>[]): Promise<void> {
    const error = await this.attempt(group.flatMap((caller) => caller.items));
    if (error === undefined) {
      for (const caller of group) caller.settle();
    } else if (group.length > 1 && this.options.split?.(error)) {
      this.options.onSplit?.(error);
      const half = Math.ceil(group.length / 2);
      await this.commit(group.slice(0, half));
      await this.commit(group.slice(half));
    } else {
      for (const caller of group) caller.settle(error);
    }
  }

  /** One write, done again after transient failures; its last error, if it failed. */
  private async attempt(items: T[]): Promise<unknown> {
    const retry = this.options.retry;
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      let failure: unknown;
      try {
        await this.write(items);
      } catch (error) {
        failure = error ?? new Error('group write failed');
      }
      this.options.onWrite?.(items.length, performance.now() - started);
      if (failure === undefined) return undefined;
      if (!retry || attempt >= retry.attempts || !retry.when(failure)) return failure;
      this.options.onRetry?.(failure);
      // Full jitter: writers that collided once do not collide again in step.
      await sleep(Math.random() * retry.delayMs * 2 ** attempt);
    }
  }

  /** Whole callers, up to maxItems items (a caller bigger than that goes alone). */
  private take() {
    let count = 0;
    let taken = 0;
    while (taken < this.waiting.length) {
      const size = this.waiting[taken]?.items.length ?? 0;
      if (taken > 0 && count + size > this.options.maxItems) break;
      count += size;
      taken++;
    }
    const group = this.waiting.splice(0, taken);
    // More is waiting than one write takes: another writer may start now.
    if (this.waiting.length > 0) this.schedule();
    return group;
  }
}
