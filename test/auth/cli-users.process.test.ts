import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/auth/users.js';
import { cookieClient, cookiesOf, PASSWORD, signIn } from '../accounts/helpers.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { databaseText } from '../helpers/dump.js';
import { type Finished, finished, footfallCommand } from '../helpers/process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

let t: TestApp;
let env: Record<string, string>;
const running = new Set<ChildProcess>();

beforeAll(async () => {
  t = await startTestApp();
  env = {
    DATABASE_URL: t.deps.config.databaseUrl ?? '',
    DATA_DIR: t.deps.config.dataDir,
    PUBLIC_URL: t.url,
  };
});
afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await t.close();
});

/** `footfall <args>`, as an operator's shell runs it, with `stdin` piped in. */
function footfall(args: string[], stdin = ''): Promise<Finished> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, footfallCommand(args), {
    cwd: ROOT,
    env: { ...inherited, LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  child.stdin.end(stdin);
  return finished(child);
}

describe('footfall users (contract §12)', () => {
  it('`users create --password-stdin` makes a user who can sign in; stdout is only the uuid', async () => {
    const password = 'typed into a pipe 42';
    const made = await footfall(
      ['users', 'create', '--email', 'cli@example.com', '--name', 'Cli Person', '--password-stdin'],
      `${password}\n`,
    );
    expect(made.code, made.stderr).toBe(0);
    const uuid = made.stdout.trim();
    expect(made.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    expect(made.stdout + made.stderr).not.toContain(password);

    // The final line break is the pipe's, not the password's.
    expect((await signIn(t.url, 'cli@example.com', `${password}\n`)).answer.status).toBe(401);
    const { answer, jar } = await signIn(t.url, 'cli@example.com', password);
    expect(answer.status).toBe(204);
    const me = await cookieClient(t.url, jar)('GET', '/v1/me');
    expect(me.body.data).toEqual({
      uuid,
      name: 'Cli Person',
      email: 'cli@example.com',
      created_at: expect.any(String),
    });
  });

  it('`users set-password` (password on stdin) ends all of the user’s sessions and tokens', async () => {
    const sam = await createUser(t.database.db, 'sam@example.com', 'Sam', PASSWORD);
    const laptop = await signIn(t.url, 'sam@example.com');
    const phone = await signIn(t.url, 'sam@example.com');
    const browsers = [
      cookieClient(t.url, laptop.jar),
      cookieClient(t.url, phone.jar),
      client(t.url, (await t.deps.tokens.issue(sam.id, 'script', null)).token),
    ];
    for (const browser of browsers) expect((await browser('GET', '/v1/me')).status).toBe(200);

    const password = 'set from the shell 7';
    const set = await footfall(['users', 'set-password', '--email', 'SAM@example.com'], password);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout + set.stderr).not.toContain(password);

    for (const browser of browsers) expect((await browser('GET', '/v1/me')).status).toBe(401);
    expect((await signIn(t.url, 'sam@example.com')).answer.status).toBe(401);
    expect((await signIn(t.url, 'sam@example.com', password)).answer.status).toBe(204);
  });

  it('`users reset-link` prints a link whose secret works once; using it ends the user’s tokens', async () => {
    const rae = await createUser(t.database.db, 'rae@example.com', 'Rae', PASSWORD);
    const before = cookieClient(t.url, (await signIn(t.url, 'rae@example.com')).jar);
    const token = client(t.url, (await t.deps.tokens.issue(rae.id, 'script', null)).token);
    expect((await token('GET', '/v1/me')).status).toBe(200);

    const printed = await footfall(['users', 'reset-link', '--email', 'rae@example.com']);
    expect(printed.code, printed.stderr).toBe(0);
    const match = new RegExp(`^${t.url}/reset/([\\w-]{40,})\\n$`).exec(printed.stdout);
    expect(match, printed.stdout).not.toBeNull();
    const secret = match?.[1] ?? '';
    // Kept only as a hash: a copy of the database cannot use it.
    expect(await databaseText(t.database.db)).not.toContain(secret);

    const browser = client(t.url);
    const page = await browser('GET', `/auth/reset/${secret}`);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ success: true, data: { email: 'rae@example.com' } });

    // A refused password does not spend the link.
    expectFieldError(
      await browser('POST', `/auth/reset/${secret}`, { password: 'short' }),
      'password',
    );
    const password = 'chosen through the link';
    const reset = await browser('POST', `/auth/reset/${secret}`, { password });
    expect(reset.status).toBe(204);
    const after = cookieClient(t.url, cookiesOf(reset));
    expect((await after('GET', '/v1/me')).body.data.email).toBe('rae@example.com');
    // The sessions and tokens from before the reset end, as with any password change.
    expect((await before('GET', '/v1/me')).status).toBe(401);
    expect((await token('GET', '/v1/me')).status).toBe(401);

    expect((await browser('GET', `/auth/reset/${secret}`)).status).toBe(404);
    const again = await browser('POST', `/auth/reset/${secret}`, {
      password: 'and once more please',
    });
    expect(again.status).toBe(404);
    expect(again.headers.getSetCookie()).toEqual([]);
    expect((await signIn(t.url, 'rae@example.com', 'and once more please')).answer.status).toBe(
      401,
    );
    expect((await signIn(t.url, 'rae@example.com', password)).answer.status).toBe(204);
  });
});
