import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestDatabase } from '../helpers/app.js';
import {
  finished,
  freePort,
  killStragglers,
  runFootfall,
  spawnFootfall,
  waitUntilReady,
} from '../helpers/process.js';
import { startSlowSmtpServer } from '../helpers/slow-smtp.js';
import { until } from '../helpers/wait.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let smtp: Awaited<ReturnType<typeof startSlowSmtpServer>>;
let dir: string;
let env: Record<string, string>;
let base: string;

beforeAll(async () => {
  database = await createTestDatabase();
  // Each message is answered 300 ms after its data arrived.
  smtp = await startSlowSmtpServer(300);
  dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-crash-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    DATABASE_URL: database.url,
    DATA_DIR: dir,
    PORT: String(port),
    HOST: '127.0.0.1',
    TOKEN_SECRET: randomBytes(32).toString('hex'),
    SMTP_URL: smtp.url,
    SMTP_FROM: 'alerts@footfall.example',
    // A killed server's claim runs out after 3 s instead of a minute.
    NOTIFICATION_LEASE_SECONDS: '3',
  };
});
afterAll(async () => {
  killStragglers();
  await smtp.close();
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

describe('a server killed while it sends an alert to 20 addresses', () => {
  it('leaves the rest to the next server: every address gets exactly one message', async () => {
    const first = spawnFootfall(['serve'], env);
    const firstExit = finished(first);
    await waitUntilReady(base, firstExit);
    await runFootfall(['users', 'create', '--email', 'ops@example.com'], env);
    const token = (
      await runFootfall(['tokens', 'create', '--email', 'ops@example.com'], env)
    ).stdout.trim();
    const api = client(base, token);
    const ws = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data;
    const to = Array.from({ length: 20 }, (_, i) => `person${i}@site.example`);
    const rule = await api('POST', `/v1/workspaces/${ws.uuid}/notifications`, {
      name: 'visits',
      trigger: 'organisation.visited',
      channel: { type: 'email', to },
    });
    expect(rule.status).toBe(201);
    const sent = await api(
      'POST',
      `/v1/workspaces/${ws.uuid}/notifications/${rule.body.data.uuid}/test`,
    );
    expect(sent.status).toBe(202);

    // Five messages accepted; the sixth arrives and is never answered: the server dies
    // with it in flight.
    await until(() => smtp.accepted.length >= 5, 30_000);
    smtp.hold();
    const accepted = smtp.accepted.length;
    await until(() => smtp.arrived() > accepted, 10_000);
    first.kill('SIGKILL');
    await firstExit;
    smtp.resume();

    const second = spawnFootfall(['serve'], env);
    const secondExit = finished(second);
    await waitUntilReady(base, secondExit);
    // Within the lease (3 s) and the sends, or a minute's lease where none is set.
    await until(() => Object.keys(smtp.perRecipient()).length === 20, 100_000);
    await sleep(1_000);
    expect(smtp.perRecipient()).toEqual(Object.fromEntries(to.map((address) => [address, 1])));
    const log = await api(
      'GET',
      `/v1/workspaces/${ws.uuid}/notifications/${rule.body.data.uuid}/deliveries`,
    );
    expect(log.body.data).toMatchObject([
      { status: 'delivered', attempts: 2, last_status_code: 250 },
    ]);

    second.kill('SIGTERM');
    expect((await secondExit).code).toBe(0);
  }, 180_000);
});
