import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createUser } from '../../src/auth/users.js';
import { loadConfig } from '../../src/config.js';
import { connect, type Db } from '../../src/db/connect.js';
import { loadKeys } from '../../src/http/keys.js';
import { Tokens } from '../../src/http/tokens.js';
import { createTestDatabase } from './app.js';
import {
  type Finished,
  finished,
  freePort,
  outputOf,
  spawnFootfall,
  waitUntilReady,
} from './process.js';

/** `footfall serve` as a process of its own, as an operator runs it. */
export interface ServerProcess {
  base: string;
  env: Record<string, string>;
  child: ChildProcess;
  /** Everything it has written so far, stdout and stderr together. */
  output(): string;
  exit: Promise<Finished>;
  /** Its database, for the test's own reads and writes. */
  db: Db;
  /** A new user's token, made the way the CLI makes one. */
  token(email: string): Promise<string>;
  /** Stops it if it still runs, then drops its database and data directory. */
  close(): Promise<void>;
}

/** Starts `footfall serve` on a free port over a database of its own; `settings` on top. */
export async function startServerProcess(
  settings: Record<string, string> = {},
): Promise<ServerProcess> {
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-serve-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    TOKEN_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'info',
    ...settings,
  };
  const child = spawnFootfall(['serve'], env);
  const output = outputOf(child);
  const exit = finished(child);
  await waitUntilReady(base, exit);
  const db = connect(database.url);
  const tokens = new Tokens(db.db, (await loadKeys(loadConfig(env))).tokenSigning);
  return {
    base,
    env,
    child,
    output,
    exit,
    db,
    async token(email) {
      const user = await createUser(db.db, email);
      return (await tokens.issue(user.id, 'test', null)).token;
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exit;
      await db.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
