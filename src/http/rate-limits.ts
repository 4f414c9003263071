import { HttpError } from './errors.js';

/**
 * At most `max` hits per key in each fixed window of `windowMs`, counted in this process's
 * memory. Windows are aligned to the clock, so every key's window ends at the same moment
 * and one map holds the current window's counts: it is emptied when the next begins (a key
 * may send up to twice `max` across a boundary, as with any fixed window).
 */
export class FixedWindowLimit {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Counts a hit; 0 when it is allowed, else the whole seconds until the window ends. */
  hit(key: string, now = Date.now()): number {
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count <= this.max) return 0;
    return Math.max(1, Math.ceil(((window + 1) * this.windowMs - now) / 1000));
  }
}

/** Counts a hit on each limit in turn; the first exceeded answers 429 with Retry-After. */
export function enforceLimits(what: string, hits: [FixedWindowLimit, string][]): void {
  for (const [limit, key] of hits) {
    const wait = limit.hit(key);
    if (wait > 0) {
      throw new HttpError(429, `${what}; retry in ${wait} s.`, undefined, {
        'retry-after': String(wait),
      });
    }
  }
}
