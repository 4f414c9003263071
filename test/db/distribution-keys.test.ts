import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/app.js';

// Contract §19: the schema can be distributed by workspace on Citus. This reads the catalogue
// of a migrated database and fails on any table that breaks the rule, so a new table has to
// be classified here (and in docs/scaling.md, which has the same lists) before it can land.

/** The tenant table itself: distributed by its own id, which every workspace table's workspace_id refers to. */
const TENANT = { table: 'workspaces', column: 'id' };

/** Global data, copied to every node on Citus (create_reference_table). */
const REFERENCE_TABLES: Record<string, string> = {
  users: 'a person, member of any number of workspaces',
  access_tokens: 'personal access tokens belong to a user, not a workspace',
  auth_links: 'sign-in links are per user',
  browser_sessions: 'dashboard sign-in sessions are per user',
  sign_in_devices: 'remembered sign-in devices are per user',
  sign_in_failures: 'sign-in throttling, keyed by address or e-mail, before any workspace is known',
  webhook_configs: 'a user’s one webhook target, for every workspace the user is a member of',
  read_fences: 'read-your-writes positions are per user',
  allowance_uses:
    'allowances are counted per user or per workspace, and must survive a workspace’s purge',
  companies: 'the operator’s company directory, shared by every workspace',
  company_sites: 'homepage profiles of company domains, shared by every workspace',
  ip_ranges: 'the operator’s IP-range data, shared by every workspace',
  rdap_networks: 'cached registration data of networks, shared by every workspace',
  rdap_autnums: 'cached registration data of autonomous systems, shared by every workspace',
};

/** Bookkeeping that stays on the coordinator only (never joined with workspace data). */
const COORDINATOR_TABLES: Record<string, string> = {
  kysely_migration: 'which migrations ran',
  kysely_migration_lock: 'the lock migrations take',
  scheduled_jobs: 'when each background job last ran, for the whole service',
};

interface Table {
  name: string;
  workspaceIdNullable: boolean | null;
}

interface Key {
  table: string;
  name: string;
  /** The key's columns in order, `(expression)` for an expression. */
  columns: string[];
}

interface ForeignKey {
  table: string;
  name: string;
  columns: string[];
  referenced: string;
  referencedColumns: string[];
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let tables: Table[];
let keys: Key[];
let foreignKeys: ForeignKey[];

beforeAll(async () => {
  database = await createTestDatabase();
  db = connect(database.url, 1);
  await migrate(db.db);
  ({ rows: tables } = await sql<Table>`
    SELECT c.relname AS name,
      (SELECT NOT a.attnotnull FROM pg_attribute a
       WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped)
        AS "workspaceIdNullable"
    FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
      AND NOT c.relispartition
    ORDER BY c.relname`.execute(db.db));
  // Primary keys, unique constraints and unique indexes (partial ones too): Citus needs each
  // to include the distribution column; ours start with it.
  ({ rows: keys } = await sql<Key>`
    SELECT t.relname AS table, i.relname AS name,
      array(SELECT COALESCE(a.attname::text, '(expression)')
            FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
            LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
            WHERE k.position <= x.indnkeyatts
            ORDER BY k.position) AS columns
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    WHERE t.relnamespace = 'public'::regnamespace AND x.indisunique
    ORDER BY t.relname, i.relname`.execute(db.db));
  ({ rows: foreignKeys } = await sql<ForeignKey>`
    SELECT t.relname AS table, con.conname AS name,
      array(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, position)
            JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
            ORDER BY k.position) AS columns,
      r.relname AS referenced,
      array(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, position)
            JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum
            ORDER BY k.position) AS "referencedColumns"
    FROM pg_constraint con
    JOIN pg_class t ON t.oid = con.conrelid
    JOIN pg_class r ON r.oid = con.confrelid
    WHERE con.contype = 'f' AND t.relnamespace = 'public'::regnamespace
    ORDER BY t.relname, con.conname`.execute(db.db));
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

const global = (table: string) => table in REFERENCE_TABLES || table in COORDINATOR_TABLES;
/** The column a distributed table is distributed by, or undefined for a global table. */
const distributionColumn = (table: string) =>
  table === TENANT.table ? TENANT.column : global(table) ? undefined : 'workspace_id';

describe('keys ready for distribution by workspace (contract §19)', () => {
  it('classifies every table: a workspace table has a workspace_id that is never null', () => {
    const unclassified = tables
      .filter((t) => t.name !== TENANT.table && !global(t.name))
      .filter((t) => t.workspaceIdNullable !== false)
      .map((t) =>
        t.workspaceIdNullable === null
          ? `${t.name}: no workspace_id (add one, or list the table as global with a reason)`
          : `${t.name}: workspace_id may be null`,
      );
    expect(unclassified).toEqual([]);
  });

  it('lists as global only tables that exist and hold no workspace_id', () => {
    const names = new Map(tables.map((t) => [t.name, t]));
    const wrong = [...Object.keys(REFERENCE_TABLES), ...Object.keys(COORDINATOR_TABLES)]
      .filter((name) => names.get(name)?.workspaceIdNullable !== null)
      .map((name) =>
        names.has(name) ? `${name} has a workspace_id` : `${name} is no table of the schema`,
      );
    expect(wrong).toEqual([]);
  });

  it('starts every primary key and unique constraint or index of a workspace table with its workspace', () => {
    const wrong = keys
      .filter((key) => {
        const column = distributionColumn(key.table);
        return column !== undefined && key.columns[0] !== column;
      })
      .map((key) => `${key.table}.${key.name} (${key.columns.join(', ')})`);
    expect(wrong).toEqual([]);
  });

  it('joins two workspace tables by foreign key only on the workspace, and never points global data at a workspace', () => {
    const wrong = foreignKeys
      .filter((fk) => {
        const from = distributionColumn(fk.table);
        const to = distributionColumn(fk.referenced);
        if (to === undefined) return false; // a workspace table may refer to global data
        if (from === undefined) return true; // global data cannot refer to one workspace's rows
        const position = fk.columns.indexOf(from);
        return position < 0 || fk.referencedColumns[position] !== to;
      })
      .map(
        (fk) =>
          `${fk.table}.${fk.name} (${fk.columns.join(', ')}) → ${fk.referenced} (${fk.referencedColumns.join(', ')})`,
      );
    expect(wrong).toEqual([]);
  });
});

describe('docs/scaling.md', () => {
  it('distributes every workspace table and copies every reference table, in an order the foreign keys allow', async () => {
    const { readFile } = await import('node:fs/promises');
    const docs = await readFile(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
    const block = docs.split('### The commands')[1]?.split('```sql')[1]?.split('```')[0] ?? '';
    const [reference = '', distributed = ''] = block.split('create_distributed_table');
    const named = (text: string) => [...text.matchAll(/'([a-z_]+)'/g)].map((m) => m[1] as string);
    expect(new Set(named(reference))).toEqual(new Set(Object.keys(REFERENCE_TABLES)));
    const order = named(block.slice(block.indexOf('create_distributed_table'))).filter(
      (name) => name !== 'id' && name !== 'workspace_id' && name !== TENANT.table,
    );
    const workspaceTables = tables
      .map((t) => t.name)
      .filter((name) => name !== TENANT.table && !global(name));
    expect([...order].sort()).toEqual([...workspaceTables].sort());
    expect(distributed).toContain(`'${TENANT.table}', '${TENANT.column}'`);
    // A table comes after every workspace table it refers to.
    const position = new Map(order.map((name, index) => [name, index]));
    const early = foreignKeys
      .filter((fk) => position.has(fk.table) && position.has(fk.referenced))
      .filter((fk) => fk.table !== fk.referenced)
      .filter((fk) => (position.get(fk.referenced) as number) > (position.get(fk.table) as number))
      .map((fk) => `${fk.table} before ${fk.referenced}`);
    expect(early).toEqual([]);
  });
});
