import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Api } from '../../src/http/api.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { startSlowSmtpServer } from '../helpers/slow-smtp.js';
import { until } from '../helpers/wait.js';

let t: TestApp;
let other: Api;
let smtp: Awaited<ReturnType<typeof startSlowSmtpServer>>;

beforeAll(async () => {
  // 8 messages, each answered 1.5 s after it arrived: a send of 12 s, four times the 3 s
  // lease here (the shortest there is), so only renewing it keeps the other server off.
  smtp = await startSlowSmtpServer(1_500);
  t = await startTestApp({
    SMTP_URL: smtp.url,
    SMTP_FROM: 'alerts@footfall.example',
    NOTIFICATION_LEASE_SECONDS: '3',
  });
  // A second server on the same database: its worker claims whatever is due.
  other = await buildApp(t.deps);
  await other.ready();
});
afterAll(async () => {
  await other.close();
  await t.close();
  await smtp.close();
});

describe('an e-mail alert whose sending outlasts the lease', () => {
  it('stays with the server that sends it: nobody gets two', async () => {
    const api = client(t.url, (await t.operator()).token);
    const ws = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data;
    const to = Array.from({ length: 8 }, (_, i) => `person${i}@site.example`);
    const rule = await api('POST', `/v1/workspaces/${ws.uuid}/notifications`, {
      name: 'visits',
      trigger: 'organisation.visited',
      channel: { type: 'email', to },
    });
    expect(rule.status).toBe(201);
    const path = `/v1/workspaces/${ws.uuid}/notifications/${rule.body.data.uuid}`;
    expect((await api('POST', `${path}/test`)).status).toBe(202);

    await until(() => Object.keys(smtp.perRecipient()).length === 8, 110_000);
    await sleep(4_000);
    expect(smtp.perRecipient()).toEqual(Object.fromEntries(to.map((address) => [address, 1])));
    const log = await api('GET', `${path}/deliveries`);
    expect(log.body.data).toMatchObject([
      { status: 'delivered', attempts: 1, last_status_code: 250 },
    ]);
  }, 150_000);
});
