import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';
import { startWebhookApp } from '../helpers/webhooks.js';

const SECRET = 'a-secret-of-twenty-chars';

/** A receiver that answers 200 only `delayMs` after each request, counting those open. */
async function startSlowReceiver(delayMs: number) {
  let open = 0;
  let most = 0;
  let received = 0;
  const waiting = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    request.resume();
    received++;
    most = Math.max(most, ++open);
    waiting.add(response);
    const timer = setTimeout(() => response.end(), delayMs);
    response.on('close', () => {
      clearTimeout(timer);
      waiting.delete(response);
      open--;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    open: () => open,
    most: () => most,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(() => t.close());

describe('a workspace whose alerts go to a slow receiver', () => {
  it("holds none of another workspace's alerts", async () => {
    const slow = await startSlowReceiver(8_000);
    const fast = await startReceiver();
    try {
      const api = client(t.url, (await t.operator()).token);
      const workspace = async () =>
        (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data;
      const busy = await workspace();
      const other = await workspace();
      const rule = (ws: string, url: string, name: string) =>
        api('POST', `/v1/workspaces/${ws}/notifications`, {
          name,
          trigger: 'organisation.visited',
          channel: { type: 'webhook', url, secret: SECRET },
        });
      for (let i = 0; i < 60; i++) {
        expect((await rule(busy.uuid, slow.url, `slow ${i}`)).status).toBe(201);
      }
      expect((await rule(other.uuid, fast.url, 'fast')).status).toBe(201);
      const session = (script: string) =>
        collector(t.url)(visit(script, [pageview('https://site.example/', Date.now())]), {
          'x-forwarded-for': '81.2.69.160',
        });

      // Acme visits: 60 alerts, each answered only after 8 s.
      expect((await session(busy.tracking_script_id)).status).toBe(202);
      await until(() => slow.open() >= 4, 10_000);

      const started = Date.now();
      expect((await session(other.tracking_script_id)).status).toBe(202);
      await until(() => fast.received.length === 1, 5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      // One workspace holds at most four of the server's deliveries at a time.
      expect(slow.most()).toBe(4);
      expect(slow.received()).toBe(4);
    } finally {
      await Promise.all([slow.close(), fast.close()]);
    }
  }, 40_000);
});
