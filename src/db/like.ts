/** An ILIKE pattern matching `text` anywhere, with `%`, `_` and `\` in it taken literally. */
export const likeContaining = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
