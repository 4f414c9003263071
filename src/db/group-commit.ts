/**
 * Group commit: many callers' items share one write (one transaction), and each caller's
 * promise settles only after the write that holds its items has committed or failed.
 *
 * While a write runs, new items wait; when it ends, everything waiting goes in the next one.
 * Under light load a write holds one request; under heavy load it holds many, which is what
 * makes durable acknowledgements cheap. It knows nothing of what it writes.
 */
export class GroupCommit<T> {
  private waiting: { items: T[]; settle: (error?: unknown) => void }[] = [];
  private waitingCount = 0;
  private running: Promise<void> | null = null;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: { maxItems: number; onWrite?: (items: number, ms: number) => void },
  ) {}

  /** Resolves once `items` are committed; rejects with the write's error otherwise. */
  add(items: T[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ items, settle: (error) => (error ? reject(error) : resolve()) });
      this.waitingCount += items.length;
      this.running ??= this.drain();
    });
  }

  /** Waits until everything added so far is written. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    // Let the requests that arrived in the same tick join the first write.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.waiting.length > 0) {
      const group = this.take();
      const items = group.flatMap((entry) => entry.items);
      const started = performance.now();
      let failure: unknown;
      try {
        await this.write(items);
      } catch (error) {
        failure = error ?? new Error('group write failed');
      }
      this.options.onWrite?.(items.length, performance.now() - started);
      for (const entry of group) entry.settle(failure);
    }
    this.running = null;
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
    this.waitingCount -= count;
    return this.waiting.splice(0, taken);
  }
}
