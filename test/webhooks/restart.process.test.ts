import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestDatabase } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import {
  finished,
  freePort,
  killStragglers,
  runFootfall,
  spawnFootfall,
  waitUntilReady,
} from '../helpers/process.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dir: string;
let env: Record<string, string>;
let base: string;

beforeAll(async () => {
  database = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-restart-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    DATABASE_URL: database.url,
    DATA_DIR: dir,
    PORT: String(port),
    HOST: '127.0.0.1',
    TOKEN_SECRET: randomBytes(32).toString('hex'),
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    WEBHOOK_RETRY_SECONDS: '1,1,1,1,1,1,1,1,1,1',
    TRUST_PROXY: '127.0.0.1',
  };
});
afterAll(async () => {
  killStragglers();
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

describe('pending webhook deliveries', () => {
  it('survive a SIGKILL and are delivered after the restart', async () => {
    const first = spawnFootfall(['serve'], env);
    const firstExit = finished(first);
    await waitUntilReady(base, firstExit);
    await runFootfall(['users', 'create', '--email', 'ops@example.com'], env);
    const token = (
      await runFootfall(['tokens', 'create', '--email', 'ops@example.com'], env)
    ).stdout.trim();
    const ranges = path.join(dir, 'ranges.csv');
    await writeFile(ranges, '81.2.69.0/24,acme.com,Acme\n');
    expect((await runFootfall(['import', 'ip-ranges', ranges], env)).code).toBe(0);

    const api = client(base, token);
    const receiverPort = await freePort(); // nothing listens there yet: attempts fail
    await api('PATCH', '/radar/operator/v1/webhooks', {
      delivery: {
        webhook_url: `http://127.0.0.1:${receiverPort}/hooks`,
        webhook_secret: 'whsec-restart-0123456789',
      },
    });
    const workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body
      .data;
    await collector(base)(
      visit(workspace.tracking_script_id, [pageview('https://site.example/', Date.now())]),
      {
        'x-forwarded-for': '81.2.69.160',
      },
    );
    const deliveries = async () =>
      (await api('GET', '/radar/operator/v1/webhooks/deliveries')).body.data;
    // Wait for a failed attempt to be recorded (attempts count from the claim, before the send).
    for (let i = 0; i < 100 && !(await deliveries())[0]?.last_error; i++) await sleep(100);
    const [pending] = await deliveries();
    expect(pending).toMatchObject({ event: 'organisation.identified', status: 'pending' });
    expect(pending.last_error).not.toBe('');

    first.kill('SIGKILL');
    await firstExit;
    // Now the receiver listens, on the port the deliveries were failing to reach.
    const got: string[] = [];
    const server = createServer((request, response) => {
      got.push(String(request.headers['x-footfall-delivery']));
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(receiverPort, '127.0.0.1', resolve));
    try {
      const second = spawnFootfall(['serve'], env);
      const secondExit = finished(second);
      await waitUntilReady(base, secondExit);
      // Within one retry, or one lease (60 s) if the kill hit a send in flight.
      for (let i = 0; i < 750 && got.length === 0; i++) await sleep(100);
      expect(got).toContain(pending.uuid);
      second.kill('SIGTERM');
      expect((await secondExit).code).toBe(0);
    } finally {
      server.close();
    }
  }, 240_000); // five processes start (tsx compiles the source each time): slow on a busy machine
});
