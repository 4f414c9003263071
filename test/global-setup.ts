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
