import path from 'node:path';
import { sql } from 'kysely';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/app.js';

// db/schema.ts is written by hand beside the migrations; this reads both (the types through
// the TypeScript compiler, the tables from information_schema after every migration) so a
// column added, dropped or made nullable on one side only fails here.

type Columns = Map<string, { nullable: boolean | 'either' }>;

/** The tables of db/schema.ts's Database, each column with whether its select type has null. */
function declaredTables(): Map<string, Columns> {
  const file = path.resolve(import.meta.dirname, '../../src/db/schema.ts');
  const program = ts.createProgram([file], { strict: true, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file) as ts.SourceFile;
  const database = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'Database',
  );
  if (!database) throw new Error('db/schema.ts has no Database interface');
  const tables = new Map<string, Columns>();
  for (const table of checker.getTypeAtLocation(database).getProperties()) {
    const columns: Columns = new Map();
    const tableType = checker.getTypeOfSymbolAtLocation(table, database);
    for (const column of tableType.getProperties()) {
      let type = checker.getTypeOfSymbolAtLocation(column, database);
      // Kysely's ColumnType<Select, Insert, Update> (Generated too): the select type counts.
      const select = type.getProperty('__select__');
      if (select) type = checker.getTypeOfSymbolAtLocation(select, database);
      // `unknown` (a JSON column of any shape) says nothing either way: only its name counts.
      const parts = type.isUnion() ? type.types : [type];
      const nullable = parts.some((part) => (part.flags & ts.TypeFlags.Null) !== 0);
      const anything = (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) !== 0;
      columns.set(column.name, { nullable: anything ? 'either' : nullable });
    }
    tables.set(table.name, columns);
  }
  return tables;
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = connect(database.url, 1);
  await migrate(db.db);
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

describe('db/schema.ts', () => {
  it('declares every table and column of the migrated database, nullable where it is', async () => {
    const { rows } = await sql<{ table: string; column: string; nullable: 'YES' | 'NO' }>`
      SELECT table_name AS table, column_name AS column, is_nullable AS nullable
      FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name NOT LIKE 'kysely_migration%'
        -- Month partitions (migration 0034) are their tables' parts, not tables of their own.
        AND table_name NOT IN (SELECT relname FROM pg_class WHERE relispartition)
      ORDER BY table_name, ordinal_position`.execute(db.db);
    const live = new Map<string, Columns>();
    for (const row of rows) {
      const columns = live.get(row.table) ?? new Map();
      columns.set(row.column, { nullable: row.nullable === 'YES' });
      live.set(row.table, columns);
    }
    const declared = declaredTables();
    for (const [table, columns] of declared) {
      for (const [column, shape] of columns) {
        const found = live.get(table)?.get(column);
        if (shape.nullable === 'either' && found) shape.nullable = found.nullable;
      }
    }
    const describeAll = (tables: Map<string, Columns>) =>
      Object.fromEntries(
        [...tables]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([table, columns]) => [
            table,
            Object.fromEntries(
              [...columns]
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([column, { nullable }]) => [column, nullable ? 'nullable' : 'not null']),
            ),
          ]),
      );
    expect(describeAll(declared)).toEqual(describeAll(live));
  });
});

describe('the schema’s functions', () => {
  // PostgreSQL decides whether a query may use parallel workers from the functions it calls,
  // before it inlines them: one pure function left PARALLEL UNSAFE (the default) keeps every
  // query that calls it on one process (migration 0048).
  it('marks every immutable function parallel safe', async () => {
    const { rows } = await sql<{ name: string; parallel: string }>`
      SELECT proname AS name, proparallel AS parallel FROM pg_proc
      WHERE pronamespace = current_schema()::regnamespace AND provolatile = 'i'
      ORDER BY proname`.execute(db.db);
    expect(rows.map((row) => row.name)).toEqual(
      expect.arrayContaining(['domain_and_parents', 'session_micros', 'stats_session_days']),
    );
    expect(rows.filter((row) => row.parallel !== 's').map((row) => row.name)).toEqual([]);
  });
});
