/** `text` for an ILIKE pattern, with `%`, `_` and `\` in it taken literally. */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** An ILIKE pattern matching `text` anywhere. */
export const likeContaining = (text: string) => `%${literal(text)}%`;

/** An ILIKE pattern matching values that begin with `text`. */
export const likeStarting = (text: string) => `${literal(text)}%`;

/** An ILIKE pattern matching values that end with `text`. */
export const likeEnding = (text: string) => `%${literal(text)}`;
