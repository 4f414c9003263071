import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/app.js';
import {
  type Finished,
  finished,
  killStragglers,
  runFootfall,
  spawnFootfall,
} from '../helpers/process.js';
import { until } from '../helpers/wait.js';

// What the CLI tells an operator to open or call names the server's address: PUBLIC_URL,
// else this machine on PORT, never a port the server does not use.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-cli-addresses-'));
  env = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    TOKEN_SECRET: randomBytes(32).toString('hex'),
  };
});
afterAll(async () => {
  killStragglers();
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
});

/** The origins of every http(s) address in a text. */
const origins = (text: string) => [...new Set(text.match(/https?:\/\/[^/\s"]+/g) ?? [])];

describe('the addresses the CLI suggests', () => {
  it('serve, while no account exists, names the port it got, its setup link and its reference', async () => {
    // PORT=0: the system picks a port, which only the running server knows.
    const child = spawnFootfall(['serve'], {
      ...env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const exit: Promise<Finished> = finished(child);
    await until(() => stderr.includes('reference'), 60_000);
    child.kill('SIGTERM');
    await exit;
    const port = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1];
    expect(port).toMatch(/^\d+$/);
    expect(stderr).toMatch(new RegExp(`\\n  http://localhost:${port}/setup/[\\w-]{40,}\\n`));
    expect(stderr).toContain(
      `curl -H "Authorization: Bearer <token>" http://localhost:${port}/v1/workspaces  (reference: http://localhost:${port}/docs)`,
    );
  }, 90_000);

  it('with PORT=4123: users create, workspaces create and demo name http://localhost:4123', async () => {
    const settings = { ...env, PORT: '4123' };
    const user = await runFootfall(['users', 'create', '--email', 'ana@example.com'], settings);
    expect(user.code, user.stderr).toBe(0);
    expect(user.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/); // stdout: the uuid alone
    expect(user.stderr).toBe(
      'footfall: to sign in at http://localhost:4123, ana@example.com needs a password: npx --no footfall users reset-link --email ana@example.com\n',
    );
    const workspace = await runFootfall(
      ['workspaces', 'create', '--email', 'ana@example.com', '--url', 'https://acme.com'],
      settings,
    );
    expect(JSON.parse(workspace.stdout).tracking_script_snippet).toContain(
      '"http://localhost:4123/t/',
    );
    const demo = await runFootfall(['demo', '--days', '1', '--email', 'ana@example.com'], settings);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('With the server running (PORT=4123 npm start), look at it:');
    expect(demo.stdout).toContain('The API reference is at http://localhost:4123/docs.');
    expect(origins(demo.stdout)).toEqual(['http://localhost:4123']);
  }, 90_000);

  it('with PUBLIC_URL: they name PUBLIC_URL and no local address', async () => {
    const settings = { ...env, PORT: '4123', PUBLIC_URL: 'https://footfall.acme.example/' };
    const user = await runFootfall(['users', 'create', '--email', 'bo@example.com'], settings);
    expect(user.stderr).toContain('to sign in at https://footfall.acme.example, bo@example.com');
    const demo = await runFootfall(['demo', '--days', '1', '--email', 'bo@example.com'], settings);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('"https://footfall.acme.example/v1/workspaces/');
    expect(origins(demo.stdout)).toEqual(['https://footfall.acme.example']);
    const reset = await runFootfall(['users', 'reset-link', '--email', 'bo@example.com'], settings);
    expect(reset.stdout).toMatch(/^https:\/\/footfall\.acme\.example\/reset\/[\w-]{40,}\n$/);
  }, 90_000);
});
