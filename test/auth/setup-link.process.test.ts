import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.js';
import { cookieClient, cookiesOf } from '../accounts/helpers.js';
import { client, createTestDatabase, expectFieldError } from '../helpers/app.js';
import { databaseText } from '../helpers/dump.js';
import {
  type Finished,
  finished,
  freePort,
  killStragglers,
  outputOf,
  spawnFootfall,
  waitUntilReady,
} from '../helpers/process.js';
import { until } from '../helpers/wait.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dataDir: string;
let env: Record<string, string>;
let base: string;

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-setup-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // LOG_LEVEL info: every request is logged, so the log is worth searching for secrets.
  env = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    LOG_LEVEL: 'info',
  };
});
afterAll(async () => {
  killStragglers();
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
});

/** `footfall serve`, with its log (stdout and stderr) readable while it runs. */
async function serve(): Promise<{
  child: ChildProcess;
  log: () => string;
  exit: Promise<Finished>;
}> {
  const child = spawnFootfall(['serve'], env);
  // The setup link goes to stderr; the request log (pino) to stdout. Both are "the log".
  const log = outputOf(child);
  const exit = finished(child);
  await waitUntilReady(base, exit);
  return { child, log, exit };
}

async function stop(server: { child: ChildProcess; exit: Promise<Finished> }): Promise<void> {
  server.child.kill('SIGTERM');
  expect((await server.exit).code).toBe(0);
}

describe('the first start (contract §12)', () => {
  it('logs a one-time setup link that creates the first user and signs them in; a restart with a user logs none', async () => {
    const first = await serve();
    const LINK = new RegExp(`${base.replace(/[.]/g, '\\.')}/setup/([\\w-]{40,})\\n`);
    await until(() => LINK.test(first.log()));
    const secret = LINK.exec(first.log())?.[1] ?? '';

    const browser = client(base);
    expect((await browser('GET', `/auth/setup/${secret}`)).status).toBe(200);
    expect((await browser('GET', `/auth/setup/${secret.slice(0, -2)}xx`)).status).toBe(404);
    expect(await stored()).not.toContain(secret);

    // A refused form does not spend the link.
    const password = 'the very first password';
    expectFieldError(
      await browser('POST', `/auth/setup/${secret}`, {
        email: 'root@example.com',
        name: 'Root',
        password: 'short',
      }),
      'password',
    );
    const made = await browser('POST', `/auth/setup/${secret}`, {
      email: 'root@example.com',
      name: 'Root',
      password,
    });
    expect(made.status).toBe(204);
    const jar = cookiesOf(made);
    expect(jar.footfall_session).toMatch(/^[\w-]{40,}$/);
    const me = await cookieClient(base, jar)('GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({
      uuid: expect.any(String),
      name: 'Root',
      email: 'root@example.com',
      created_at: expect.any(String),
    });
    expect(
      (await browser('POST', '/auth/sign-in', { email: 'root@example.com', password })).status,
    ).toBe(204);

    // The link is spent.
    expect((await browser('GET', `/auth/setup/${secret}`)).status).toBe(404);
    const again = await browser('POST', `/auth/setup/${secret}`, {
      email: 'second@example.com',
      name: 'Second',
      password: 'another long password',
    });
    expect(again.status).toBe(404);
    expect(again.headers.getSetCookie()).toEqual([]);

    const text = await stored();
    expect(text).not.toContain(jar.footfall_session);
    expect(text).not.toContain(password);

    await stop(first);
    const second = await serve();
    // The check for users runs right after listening; give it time to (not) speak.
    await sleep(1500);
    await stop(second);
    expect(second.log()).not.toContain('/setup/');
    expect(second.log()).not.toContain('No account yet');

    // The log records requests (so searching it means something), never the password or the
    // session cookie.
    const log = first.log() + second.log();
    expect(first.log()).toContain('/v1/me');
    expect(log).not.toContain(password);
    expect(log).not.toContain(jar.footfall_session);
    expect(log).not.toContain(jar.footfall_csrf);
    // The link itself is printed once, in the first-start message; requests using it are
    // logged without it, so a log reader cannot use a live link before its owner does.
    expect(log.split(secret)).toHaveLength(2);
    expect(first.log()).toContain('/auth/setup/…');
  }, 120_000);
});

/** Every row of the server's database as text. */
async function stored(): Promise<string> {
  const db = connect(database.url);
  try {
    return await databaseText(db.db);
  } finally {
    await db.close();
  }
}
