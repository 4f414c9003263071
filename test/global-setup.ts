import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server where each test file makes its own database. */
    adminDatabaseUrl: string;
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
    return;
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-test-pg-'));
  const server = await startEmbeddedPostgres({
    dataDir,
    role: 'server',
    log: (message) => process.stderr.write(`embedded postgres: ${message}\n`),
  });
  project.provide('adminDatabaseUrl', server.url);
  return async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
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
