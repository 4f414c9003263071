/**
 * Input that must be refused before anything reads it: text PostgreSQL cannot store (NUL,
 * and unpaired UTF-16 surrogates, which JSON.parse makes from "\ud800"), and nesting deeper
 * than any request needs, which code that recurses (validation, JSON.stringify) would
 * overflow the stack on. One walker, without recursion, for the API and the collector.
 */

/** Deeper than any body we take (segment filters, at most 5 groups, reach about 12). */
export const MAX_DEPTH = 32;

/** The longest query-string or path value we read; longer is a 422, not a slow query. */
export const MAX_TEXT_PARAMETER = 2048;

export interface BadInput {
  /** Dotted path of the offending value or key, e.g. `events.0.title`; "" for the root. */
  field: string;
  /** What is wrong, to follow "The <name> field …". */
  problem: string;
}

// Without the `u` flag the pattern sees UTF-16 code units, so it finds lone surrogates.
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// What may hold one: most text has neither a NUL nor a surrogate, and this is cheaper to ask.
const SUSPECT = /[\0\ud800-\udfff]/;

/** What in `text` PostgreSQL could not store, or null when it can store all of it. */
export function unstorable(text: string): string | null {
  if (!SUSPECT.test(text)) return null;
  const found = UNSTORABLE.exec(text);
  if (!found) return null;
  return found[0] === '\0' ? 'a NUL character' : 'an unpaired UTF-16 surrogate';
}

/** A value waiting to be walked: its key and its parent's entry, to spell its path. */
interface Pending {
  item: unknown;
  key: string;
  parent: Pending | null;
  depth: number;
}

const pathOf = (entry: Pending | null, key?: string): string => {
  const keys = key === undefined ? [] : [key];
  for (let at = entry; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
};

/**
 * The first value or key in `value` that cannot be stored or nests deeper than `maxDepth`,
 * in document order; null when there is none. Strings longer than `maxLength` count too.
 * Runs on every collect request: a path is spelled only for the value refused.
 */
export function findBadInput(
  value: unknown,
  { maxDepth = MAX_DEPTH, maxLength = Number.POSITIVE_INFINITY } = {},
): BadInput | null {
  const pending: Pending[] = [{ item: value, key: '', parent: null, depth: 0 }];
  while (pending.length > 0) {
    const entry = pending.pop() as Pending;
    const { item } = entry;
    if (typeof item === 'string') {
      if (item.length > maxLength) {
        return {
          field: pathOf(entry),
          problem: `must not be longer than ${maxLength} characters`,
        };
      }
      const found = unstorable(item);
      if (found) return { field: pathOf(entry), problem: `must not contain ${found}` };
    } else if (typeof item === 'object' && item !== null) {
      if (entry.depth >= maxDepth) {
        return { field: pathOf(entry), problem: `must not nest more than ${maxDepth} levels` };
      }
      const keys = Object.keys(item);
      for (const key of keys) {
        const found = unstorable(key);
        if (found)
          return { field: pathOf(entry, key), problem: `must not have ${found} in its name` };
      }
      // Reversed onto the stack, so the first problem found is the first in the document.
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        const key = keys[index] as string;
        const child = (item as Record<string, unknown>)[key];
        if (typeof child === 'string' || (typeof child === 'object' && child !== null)) {
          pending.push({ item: child, key, parent: entry, depth: entry.depth + 1 });
        }
      }
    }
  }
  return null;
}

/** Cuts `text` to at most `max` UTF-16 units without splitting a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
