import { LRUCache } from 'lru-cache';
import { RE2JS, RE2JSException } from 're2js';

/**
 * A tenant's `pattern` rule is compiled by RE2 (re2js), never by `new RegExp`: RE2 runs in
 * time linear in the value, so no pattern can freeze the event loop for every tenant.
 * Its syntax is RE2's: no backreferences or lookaround, `\x{e9}` rather than `\u00e9`.
 */
export const PATTERN_LIMITS = {
  /** Characters of one pattern. */
  length: 1_000,
  /** RE2 instructions of all of a field's patterns together: matching time grows with it. */
  programSize: 2_000,
} as const;

// Compiled patterns are reused; each keeps a small lazily built automaton, so keep few.
const compiled = new LRUCache<string, RE2JS>({ max: 200 });

/** The compiled pattern, or the reason it cannot be one (a sentence for a 422). */
export function compilePattern(source: string): { pattern: RE2JS } | { problem: string } {
  const cached = compiled.get(source);
  if (cached) return { pattern: cached };
  if (source.length > PATTERN_LIMITS.length) {
    return { problem: `A pattern must be at most ${PATTERN_LIMITS.length} characters.` };
  }
  try {
    const pattern = RE2JS.compile(source);
    if (pattern.programSize() > PATTERN_LIMITS.programSize) {
      return { problem: 'The pattern is too complex; simplify it or use fewer repetitions.' };
    }
    compiled.set(source, pattern);
    return { pattern };
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    return {
      problem: `The pattern is not a supported regular expression (RE2 syntax): ${error.message}.`,
    };
  }
}
