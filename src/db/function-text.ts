import { type Kysely, sql } from 'kysely';

/**
 * Rewrites a stored function from its current text, for migrations that change a few
 * statements of it and nothing else: `pattern` (global) must match `expected` times, or the
 * function is not what the migration was written for and it stops.
 */
export async function rewriteFunction(
  db: Kysely<unknown>,
  name: string,
  pattern: RegExp,
  replacement: string,
  expected: number,
): Promise<void> {
  const { rows } = await sql<{ definition: string }>`
    SELECT pg_get_functiondef(${name}::regproc) AS definition`.execute(db);
  const definition = rows[0]?.definition ?? '';
  const found = definition.match(pattern)?.length ?? 0;
  if (found !== expected) {
    throw new Error(`${name}: expected ${expected} matches of ${pattern}, found ${found}`);
  }
  await sql.raw(definition.replace(pattern, replacement)).execute(db);
}
