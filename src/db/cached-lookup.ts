import { LRUCache } from 'lru-cache';

const MISSING = Symbol('missing');

/**
 * Remembers an async lookup's answers for `ttlMs`, misses included, so a hot path asks the
 * database once per key and period. A change reaches callers within `ttlMs`.
 */
export function cachedLookup<T extends {}>(
  lookup: (key: string) => Promise<T | null | undefined>,
  options: { max: number; ttlMs: number },
): (key: string) => Promise<T | null> {
  const cache = new LRUCache<string, T | typeof MISSING>({ max: options.max, ttl: options.ttlMs });
  return async (key) => {
    const cached = cache.get(key);
    if (cached !== undefined) return cached === MISSING ? null : cached;
    const found = (await lookup(key)) ?? null;
    cache.set(key, found ?? MISSING);
    return found;
  };
}
