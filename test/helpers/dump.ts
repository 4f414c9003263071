import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/schema.js';

/**
 * Every row of every table of the database as text, as a data dump would show it: a value
 * absent from this is stored nowhere. (pg_dump would refuse a newer embedded server.)
 */
export async function databaseText(db: Kysely<Database>): Promise<string> {
  const tables = await sql<{ schema: string; name: string }>`
    SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
  `.execute(db);
  const text: string[] = [];
  for (const table of tables.rows) {
    const rows = await sql<{ row: string }>`
      SELECT t::text AS row FROM ${sql.table(`${table.schema}.${table.name}`)} AS t
    `.execute(db);
    text.push(`-- ${table.schema}.${table.name}`, ...rows.rows.map((row) => row.row));
  }
  return text.join('\n');
}
