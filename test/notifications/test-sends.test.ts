import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type TestApp } from '../helpers/app.js';
import { startReceiver } from '../helpers/receiver.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';
import { startWebhookApp } from '../helpers/webhooks.js';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let slack: Awaited<ReturnType<typeof startReceiver>>;
let hook: Awaited<ReturnType<typeof startReceiver>>;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  smtp = await startSmtpServer();
  slack = await startReceiver();
  hook = await startReceiver();
  t = await startWebhookApp({ SMTP_URL: smtp.url });
  api = client(t.url, (await t.operator()).token);
});
afterAll(async () => {
  await t.close();
  await Promise.all([smtp.close(), slack.close(), hook.close()]);
});

async function workspaceWithRules() {
  const ws = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data.uuid;
  const rule = async (channel: Record<string, unknown>) => {
    const made = await api('POST', `/v1/workspaces/${ws}/notifications`, {
      name: String(channel.type),
      trigger: 'organisation.visited',
      channel,
    });
    expect(made.status).toBe(201);
    return `/v1/workspaces/${ws}/notifications/${made.body.data.uuid}/test`;
  };
  return {
    slack: await rule({ type: 'slack', webhook_url: slack.url }),
    webhook: await rule({ type: 'webhook', url: hook.url, secret: 'a-secret-of-twenty-chars' }),
    email: await rule({ type: 'email', to: ['sales@site.example'] }),
  };
}

describe('POST .../notifications/{rule}/test', () => {
  it('sends at most 10 tests a minute per workspace, whatever the channel; the next is 429 and not sent', async () => {
    const tests = await workspaceWithRules();
    const sends = [
      ...Array(4).fill(tests.slack),
      ...Array(3).fill(tests.webhook),
      ...Array(3).fill(tests.email),
    ];
    for (const path of sends) expect((await api('POST', path)).status).toBe(202);
    for (const path of [tests.slack, tests.webhook, tests.email]) {
      const refused = await api('POST', path);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        success: false,
        message: expect.stringMatching(
          /^A workspace can send at most 10 test notifications a minute\. Try again in \d+ seconds?\.$/,
        ),
      });
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
    }
    // Another workspace has its own tests.
    const other = await workspaceWithRules();
    expect((await api('POST', other.slack)).status).toBe(202);

    await until(
      () => slack.received.length >= 5 && hook.received.length >= 3 && smtp.messages.length >= 3,
    );
    await sleep(1000);
    expect(slack.received).toHaveLength(5);
    expect(hook.received).toHaveLength(3);
    expect(smtp.messages).toHaveLength(3);
  });
});
