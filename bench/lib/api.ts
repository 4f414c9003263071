import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { createUser, findUserByEmail } from '../../src/auth/users.js';
import { loadConfig } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { loadKeys } from '../../src/http/keys.js';
import { Tokens } from '../../src/http/tokens.js';
import { benchDatabase } from './database.js';

/**
 * The real app on a fresh bench database with one user (with `password` for browser sign-in
 * when given) and its token: `call` times one request through HTTP, `done` removes it all.
 * With `keptDatabase` (a URL) the app runs on that database instead, which `done` leaves as
 * it is, and the user of an earlier run there is taken again.
 */
export async function benchApi(options: { password?: string; keptDatabase?: string } = {}) {
  const database = options.keptDatabase
    ? { url: options.keptDatabase, done: async () => {} }
    : await benchDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-bench-data-'));
  // Also what a second server on the same database needs to accept the same token.
  const settings = {
    LOG_LEVEL: 'silent',
    TOKEN_SECRET: randomBytes(32).toString('hex'),
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    RATE_LIMIT_PER_MINUTE: '100000',
  };
  const config = loadConfig(settings);
  const { db, close } = connect(database.url);
  await migrate(db);
  const keys = await loadKeys(config);
  const tokens = new Tokens(db, keys.tokenSigning);
  const app = await buildApp({ config, db, keys, tokens });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // The password first: setting one later would end the token, as any password change does.
  const user =
    (options.keptDatabase && (await findUserByEmail(db, 'bench@example.com'))) ||
    (await createUser(db, 'bench@example.com', '', options.password));
  const { token } = await tokens.issue(user.id, 'bench', null);

  async function call(method: string, url: string, body?: unknown) {
    const started = performance.now();
    const response = await fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    const ms = performance.now() - started;
    if (!response.ok) {
      throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`);
    }
    return { json, ms };
  }

  async function done() {
    await app.close();
    await close();
    await database.done();
    await rm(dataDir, { recursive: true, force: true });
  }

  return { db, base, user, token, settings, call, done };
}
