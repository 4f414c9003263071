import { createHash } from 'node:crypto';
import { type Compilable, type Kysely, sql } from 'kysely';
import type pg from 'pg';

/**
 * The collector's statements, kept parsed and planned by each connection.
 *
 * Every statement the collector sends for a request or a group write has the same text each
 * time (its values travel as arrays), yet PostgreSQL parsed and planned it anew each time:
 * on the benchmark, planning took longer than running for the visitor's identity (0.17 ms
 * against 0.01 ms, every request) and about as long for the group write's statements
 * (docs/performance.md, "Collector after finding companies"). A statement marked here is sent as a named
 * prepared statement: each connection parses it once, and PostgreSQL keeps its plan
 * (a generic one once it costs no more than planning for the values).
 *
 * Only fixed texts are marked: each marked text stays prepared on every connection for
 * the connection's life. A marked statement names its columns rather than `*`, so a
 * migration run by another process cannot change the shape of a plan kept here.
 */
const MARK = '/* prepared */ ';

/** Put first in a fixed SQL text: sql`${PREPARED}SELECT ...`. */
export const PREPARED = sql.raw(MARK);

/** Runs a query builder's statement prepared; its rows. */
export async function preparedRows<DB, R>(db: Kysely<DB>, query: Compilable<R>): Promise<R[]> {
  const compiled = query.compile();
  const { rows } = await db.executeQuery<R>({ ...compiled, sql: MARK + compiled.sql });
  return rows;
}

const names = new Map<string, string>();

/** A name for a text, the same for the same text in every process. */
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `footfall_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/** Makes a connection send marked statements as named prepared statements. */
export function preparingMarked(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const marked = (text: unknown, values?: unknown, callback?: unknown) =>
    typeof text === 'string' && text.startsWith(MARK)
      ? query({ name: statementName(text), text, values }, callback)
      : query(text, values, callback);
  client.query = marked as typeof client.query;
}
