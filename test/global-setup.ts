import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { connect } from '../src/db/connect.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server where each test file makes its own database. */
    adminDatabaseUrl: string;
    /** A database on it with every migration applied, made once per run, to copy from. */
    migratedTemplate: string;
  }
}

/**
 * Tests use DATABASE_URL when it is set (CI runs the suite both ways) and otherwise one
 * embedded PostgreSQL for the whole run, in a temporary directory.
 */
export default async function setup(project: TestProject) {
  buildDashboardIfStale();
  if (process.env.DATABASE_URL) {
    project.provide('adminDatabaseUrl', process.env.DATABASE_URL);
    const dropTemplate = await provideTemplate(project, process.env.DATABASE_URL);
    return dropTemplate;
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-test-pg-'));
  const server = await startEmbeddedPostgres({
    dataDir,
    role: 'server',
    log: (message) => process.stderr.write(`embedded postgres: ${message}\n`),
  });
  project.provide('adminDatabaseUrl', server.url);
  await provideTemplate(project, server.url);
  return async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}

/**
 * Migrates one database for the run, which test files that want a migrated database of
 * their own copy (`CREATE DATABASE … TEMPLATE`) instead of applying every migration again:
 * about 0.9 s a file. Answers how to drop it.
 */
async function provideTemplate(project: TestProject, adminUrl: string) {
  const name = `footfall_test_template_${randomBytes(6).toString('hex')}`;
  const admin = async (query: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(query);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = connect(url.toString(), 1);
  try {
    await migrate(database.db);
  } finally {
    await database.close();
  }
  project.provide('migratedTemplate', name);
  return () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/**
 * The dashboard tests drive the built dashboard (dist/web), as `npm start` serves it; build it
 * once for the run when anything under web/ is newer than the build.
 */
function buildDashboardIfStale(): void {
  const root = path.resolve(import.meta.dirname, '..');
  const built = path.join(root, 'dist/web/index.html');
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? newest(full) : statSync(full).mtimeMs;
      }),
    );
  if (existsSync(built) && statSync(built).mtimeMs >= newest(path.join(root, 'web'))) return;
  execFileSync('npx', ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
    // Vitest sets NODE_ENV=test, which would make Vite build React's development bundle.
    env: { ...process.env, NODE_ENV: 'production' },
  });
}
