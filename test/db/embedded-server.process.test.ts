import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/app.js';
import {
  finished,
  freePort,
  isAlive,
  killStragglers,
  runFootfall,
  spawnFootfall,
  waitUntilReady,
} from '../helpers/process.js';
import { expectShape, WORKSPACE_SHAPE } from '../helpers/shape.js';

// `footfall serve` with no DATABASE_URL: the embedded PostgreSQL in DATA_DIR, as `npm start`.
let dataDir: string;
let env: Record<string, string>;
let base: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-embedded-'));
  const port = await freePort();
  env = { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  killStragglers();
  await rm(dataDir, { recursive: true, force: true });
});

function postmasterPid(): number {
  const lines = readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n');
  return Number(lines[0]);
}

describe('footfall serve on the embedded database', () => {
  it('serves, works with the CLI alongside, survives SIGKILL with its data, and stops cleanly', async () => {
    const first = spawnFootfall(['serve'], env);
    const firstExit = finished(first);
    await waitUntilReady(base, firstExit);

    // The CLI joins the running server's database.
    const user = await runFootfall(['users', 'create', '--email', 'ops@example.com'], env);
    expect(user.code, user.stderr).toBe(0);
    expect(user.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
    const issued = await runFootfall(['tokens', 'create', '--email', 'ops@example.com'], env);
    expect(issued.code, issued.stderr).toBe(0);
    const token = issued.stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    const made = await runFootfall(
      ['workspaces', 'create', '--email', 'ops@example.com', '--url', 'https://acme.com'],
      env,
    );
    expect(made.code, made.stderr).toBe(0);
    const workspace = JSON.parse(made.stdout);
    expectShape(workspace, WORKSPACE_SHAPE);

    const call = client(base, token);
    const before = await call('GET', `/v1/workspaces/${workspace.uuid}`);
    expect(before.status).toBe(200);
    await call('PATCH', `/v1/workspaces/${workspace.uuid}`, { usage_limit: 77 });

    // A second server on the same data directory is refused while the first runs.
    const rival = await runFootfall(['serve'], { ...env, PORT: String(await freePort()) });
    expect(rival.code).not.toBe(0);
    expect(rival.stderr).toMatch(/Another Footfall process/);

    const orphan = postmasterPid();
    first.kill('SIGKILL');
    await firstExit;
    expect(isAlive(orphan)).toBe(true); // PostgreSQL outlives its parent: the next start must cope

    const second = spawnFootfall(['serve'], env);
    const secondExit = finished(second);
    await waitUntilReady(base, secondExit);
    expect(isAlive(orphan)).toBe(false);
    const after = await call('GET', `/v1/workspaces/${workspace.uuid}`);
    expect(after.status).toBe(200);
    expect(after.body.data).toMatchObject({ uuid: workspace.uuid, usage_limit: '77' });

    // Revocation from the CLI takes effect on the running server.
    const list = await runFootfall(['tokens', 'list', '--email', 'ops@example.com'], env);
    const [row] = JSON.parse(list.stdout);
    expect((await runFootfall(['tokens', 'revoke', row.id], env)).code).toBe(0);
    expect((await call('GET', '/v1/workspaces')).status).toBe(401);

    const postmaster = postmasterPid();
    second.kill('SIGTERM');
    const exit = await secondExit;
    expect(exit.code).toBe(0);
    for (let i = 0; i < 50 && isAlive(postmaster); i++) await sleep(100);
    expect(isAlive(postmaster)).toBe(false);
  }, 240_000);
});
