import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createUser } from '../../src/auth/users.js';
import { type Config, loadConfig } from '../../src/config.js';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import type { Api, AppDeps } from '../../src/http/api.js';
import { loadKeys } from '../../src/http/keys.js';
import { Tokens } from '../../src/http/tokens.js';

/** A database of its own for one test file, on the run's PostgreSQL server. */
export async function createTestDatabase({
  migrated = false,
} = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `footfall_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // Migrated: a copy of the run's migrated database (test/global-setup.ts), not the
  // migrations again; otherwise empty, for tests that migrate it themselves.
  await admin.query(
    migrated
      ? `CREATE DATABASE ${name} TEMPLATE ${inject('migratedTemplate')}`
      : `CREATE DATABASE ${name}`,
  );
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * A database of the test file's own, made before its tests and dropped after them; `db()`
 * is its connection once they run. Empty unless `migrated` (tests of a migration take it up
 * to where they start); `connections` is its pool's size.
 */
export function databaseOfItsOwn({ migrated = false, connections = 1 } = {}): () => Db {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase({ migrated });
    db = connect(database.url, connections);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });
  return () => {
    if (!db) throw new Error('the database is made before the tests');
    return db;
  };
}

export interface TestApp {
  /** Where the app listens, e.g. http://127.0.0.1:41234 */
  url: string;
  app: Api;
  deps: AppDeps;
  database: Db;
  /** Makes a user and returns a token for it. */
  operator(email?: string): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

/** The real app on a random loopback port, over a fresh database. */
export async function startTestApp(
  settings: Record<string, string> = {},
  extra: Partial<AppDeps> = {},
): Promise<TestApp> {
  const { url: databaseUrl, drop } = await createTestDatabase({ migrated: true });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-test-data-'));
  const config: Config = loadConfig({
    // TEST_LOG_LEVEL=error shows what the server logged, such as the cause of a 500.
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    TOKEN_SECRET: randomBytes(32).toString('hex'),
    DATA_DIR: dataDir,
    // Tests ask the outside world nothing unless they point it at their own servers.
    ONLINE_LOOKUPS: 'off',
    ...settings,
    DATABASE_URL: databaseUrl,
  });
  const database = connect(databaseUrl);
  await migrate(database.db);
  const keys = await loadKeys(config);
  const tokens = new Tokens(database.db, keys.tokenSigning);
  const deps: AppDeps = { config, db: database.db, keys, tokens, ...extra };
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let operators = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    deps,
    database,
    async operator(email = `operator${++operators}@example.com`) {
      const operator = await createUser(database.db, email);
      const issued = await tokens.issue(operator.id, 'test', null);
      return { id: operator.id, token: issued.token };
    },
    async close() {
      // The database goes even when closing fails (a test that ended the pool itself).
      try {
        await app.close();
        await database.close();
      } finally {
        await drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Another server over `first`'s database and settings, as a second process behind a load
 * balancer would be: caches of its own, the same data. Closing it leaves the database.
 */
export async function startSecondApp(
  first: TestApp,
): Promise<{ url: string; close(): Promise<void> }> {
  const { config } = first.deps;
  const database = connect(config.databaseUrl as string);
  const keys = await loadKeys(config);
  const tokens = new Tokens(database.db, keys.tokenSigning);
  const app = await buildApp({ config, db: database.db, keys, tokens });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
  body: any;
}

/** A small JSON client: what a real API client sends and sees. */
export function client(base: string, token?: string) {
  return async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token && { authorization: `Bearer ${token}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed };
  };
}

/** A 422 in the contract's shape, with `field` among (or, when `only`, alone in) its errors. */
export function expectFieldError(answer: Answer, field: string, only = false): void {
  expect(answer.status).toBe(422);
  expect(answer.body.success).toBe(false);
  expect(typeof answer.body.message).toBe('string');
  if (only) expect(Object.keys(answer.body.errors)).toEqual([field]);
  else expect(Object.keys(answer.body.errors)).toContain(field);
  expect(answer.body.errors[field][0]).toEqual(expect.any(String));
}
