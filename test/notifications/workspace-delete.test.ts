import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { freePort } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { startWebhookApp } from '../helpers/webhooks.js';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp({ WEBHOOK_RETRY_SECONDS: '1,1,1,1,1,1,1,1,1,1' });
});
afterAll(() => t.close());

describe('deleting a workspace', () => {
  it('drops the alerts it had queued: none is sent afterwards', async () => {
    const api = client(t.url, (await t.operator()).token);
    const ws = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data;
    const port = await freePort(); // nothing listens there yet: attempts fail
    const created = await api('POST', `/v1/workspaces/${ws.uuid}/notifications`, {
      name: 'visits',
      trigger: 'organisation.visited',
      channel: {
        type: 'webhook',
        url: `http://127.0.0.1:${port}/hooks`,
        secret: 'a-secret-of-twenty-chars',
      },
    });
    expect(created.status).toBe(201);
    const rule = created.body.data.uuid;
    // An alert (Acme visits) and two test sends.
    await collector(t.url)(
      visit(ws.tracking_script_id, [pageview('https://site.example/', Date.now())]),
      {
        'x-forwarded-for': '81.2.69.160',
      },
    );
    for (let i = 0; i < 2; i++) {
      expect(
        (await api('POST', `/v1/workspaces/${ws.uuid}/notifications/${rule}/test`)).status,
      ).toBe(202);
    }
    const log = async () =>
      (await api('GET', `/v1/workspaces/${ws.uuid}/notifications/${rule}/deliveries`)).body.data;
    await until(async () => {
      const rows = await log();
      return (
        rows.length === 3 && rows.every((row: { last_error: string }) => row.last_error !== '')
      );
    });
    expect((await log()).map((row: { status: string }) => row.status)).toEqual(
      Array(3).fill('pending'),
    );

    expect((await api('DELETE', `/v1/workspaces/${ws.uuid}`)).status).toBe(204);
    // The receiver is back, where the retries (1 s apart) were going.
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      received.push(String(request.headers['x-footfall-delivery']));
      response.end();
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    try {
      await sleep(4_000);
      expect(received).toEqual([]);
      const left = await t.database.db
        .selectFrom('notification_deliveries')
        .select('id')
        .where('workspace_id', '=', ws.uuid)
        .execute();
      expect(left).toEqual([]);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 30_000);
});
