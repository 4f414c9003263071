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

/** What in `text` PostgreSQL could not store, or null when it can store all of it. */
export function unstorable(text: string): string | null {
  const found = UNSTORABLE.exec(text);
  if (!found) return null;
  return found[0] === '\0' ? 'a NUL character' : 'an unpaired UTF-16 surrogate';
}

/**
 * The first value or key in `value` that cannot be stored or nests deeper than `maxDepth`,
 * in document order; null when there is none. Strings longer than `maxLength` count too.
 */
export function findBadInput(
  value: unknown,
  { maxDepth = MAX_DEPTH, maxLength = Number.POSITIVE_INFINITY } = {},
): BadInput | null {
  const pending: { item: unknown; path: string[] }[] = [{ item: value, path: [] }];
  while (pending.length > 0) {
    const { item, path } = pending.pop() as { item: unknown; path: string[] };
    if (typeof item === 'string') {
      if (item.length > maxLength) {
        return {
          field: path.join('.'),
          problem: `must not be longer than ${maxLength} characters`,
        };
      }
      const found = unstorable(item);
      if (found) return { field: path.join('.'), problem: `must not contain ${found}` };
    } else if (typeof item === 'object' && item !== null) {
      if (path.length >= maxDepth) {
        return { field: path.join('.'), problem: `must not nest more than ${maxDepth} levels` };
      }
      const children = Object.entries(item);
      for (const [key] of children) {
        const found = unstorable(key);
        if (found)
          return { field: [...path, key].join('.'), problem: `must not have ${found} in its name` };
      }
      // Reversed onto the stack, so the first problem found is the first in the document.
      for (let index = children.length - 1; index >= 0; index -= 1) {
        const [key, child] = children[index] as [string, unknown];
        pending.push({ item: child, path: [...path, key] });
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
