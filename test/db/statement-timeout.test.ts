import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Db, openDatabase } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/app.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const opened: Db[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await database.drop();
});

async function open(role: 'server' | 'cli', settings: Record<string, string> = {}) {
  const config = loadConfig({ DATABASE_URL: database.url, ...settings });
  const db = await openDatabase(config, role, () => {});
  opened.push(db);
  return db;
}

const timeoutOf = async (db: Db) =>
  (await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(db.db)).rows[0]
    ?.statement_timeout;

describe('statement_timeout', () => {
  it('is 30 s on the server pool by default, and STATEMENT_TIMEOUT_MS sets it', async () => {
    expect(await timeoutOf(await open('server'))).toBe('30s');
    expect(await timeoutOf(await open('server', { STATEMENT_TIMEOUT_MS: '1500' }))).toBe('1500ms');
    expect(await timeoutOf(await open('server', { STATEMENT_TIMEOUT_MS: '0' }))).toBe('0');
  });

  it('is not set for the CLI, whose imports may take long', async () => {
    expect(await timeoutOf(await open('cli', { STATEMENT_TIMEOUT_MS: '1000' }))).toBe('0');
  });

  it('cuts a runaway statement on the server pool, but not migrations run on it', async () => {
    // 20 ms: a fresh database's migrations have statements that take longer.
    const db = await open('server', { STATEMENT_TIMEOUT_MS: '20' });
    await migrate(db.db);
    expect(await timeoutOf(db)).toBe('20ms');
    await expect(sql`SELECT pg_sleep(1)`.execute(db.db)).rejects.toMatchObject({ code: '57014' });
  });
});
