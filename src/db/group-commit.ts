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
  private waiting: { items: T[]; settle: (error?: unknown) => void }[] = [];
  private active = 0;
  private scheduled = false;
  private idle: (() => void)[] = [];

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: {
      maxItems: number;
      concurrency: number;
      onWrite?: (items: number, ms: number) => void;
    },
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
    const items = group.flatMap((entry) => entry.items);
    this.active++;
    const started = performance.now();
    let failure: unknown;
    try {
      await this.write(items);
    } catch (error) {
      failure = error ?? new Error('group write failed');
    }
    this.active--;
    this.options.onWrite?.(items.length, performance.now() - started);
    for (const entry of group) entry.settle(failure);
    if (this.waiting.length > 0) this.schedule();
    else if (this.active === 0) for (const resolve of this.idle.splice(0)) resolve();
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
