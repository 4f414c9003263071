import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { startReceiver } from '../helpers/receiver.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until as waitFor } from '../helpers/wait.js';
import { startWebhookApp } from '../helpers/webhooks.js';

const PUBLIC_URL = 'https://footfall.example';
const SITE = 'https://site.example';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let slack: Awaited<ReturnType<typeof startReceiver>>;
let hook: Awaited<ReturnType<typeof startReceiver>>;
let api: ReturnType<typeof client>;
let ws: { uuid: string; tracking_script_id: string };
const rules: Record<string, string> = {};

/** A new visitor (so a new session) of Acme, viewing `path`. */
const session = (path: string) =>
  collector(t.url)(visit(ws.tracking_script_id, [pageview(`${SITE}${path}`, Date.now())]), {
    'x-forwarded-for': '81.2.69.160',
  });
/** A header as it was sent (mailparser's parsed form hides some). */
const header = (
  mail: { headerLines: readonly { key: string; line: string }[] } | undefined,
  key: string,
) => mail?.headerLines.find((line) => line.key === key)?.line.replace(/\r?\n/g, '');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  smtp = await startSmtpServer();
  slack = await startReceiver([200]);
  // The webhook receiver fails once, then takes the retry.
  hook = await startReceiver([500, 200]);
  t = await startWebhookApp({
    SMTP_URL: smtp.url,
    SMTP_FROM: 'alerts@footfall.example',
    WEBHOOK_RETRY_SECONDS: '1,1',
    PUBLIC_URL,
  });
  api = client(t.url, (await t.operator()).token);
  ws = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  const segment = await api('POST', `/v1/workspaces/${ws.uuid}/segments`, {
    name: 'Hot',
    filters: { operator: 'AND', conditions: [{ field: 'tag', comparison: 'equal', value: 'hot' }] },
  });
  expect(segment.status).toBe(201);
  const rule = async (name: string, body: Record<string, unknown>) => {
    const created = await api('POST', `/v1/workspaces/${ws.uuid}/notifications`, { name, ...body });
    expect(created.status).toBe(201);
    rules[name] = created.body.data.uuid;
  };
  const hot = { segment_uuid: segment.body.uuid };
  await rule('mail', {
    trigger: 'organisation.visited',
    filter: hot,
    channel: { type: 'email', to: ['sales@site.example'] },
  });
  await rule('slack', {
    trigger: 'organisation.visited',
    filter: hot,
    channel: { type: 'slack', webhook_url: slack.url },
  });
  await rule('pricing', {
    trigger: 'page.visited',
    filter: { url_contains: '/PRICING' },
    channel: { type: 'webhook', url: hook.url, secret: 'a-secret-of-twenty-chars' },
  });
  await rule('off', {
    enabled: false,
    trigger: 'organisation.visited',
    channel: { type: 'slack', webhook_url: slack.url },
  });
});
afterAll(async () => {
  await t.close();
  await Promise.all([smtp.close(), slack.close(), hook.close()]);
});

const log = async (name: string) =>
  (await api('GET', `/v1/workspaces/${ws.uuid}/notifications/${rules[name]}/deliveries`)).body;

describe('alerts', () => {
  it('alerts once per organisation and rule: segment members only, matching pages only, retried, logged', async () => {
    // Acme's first session: not in the segment yet, and /home is no pricing page.
    expect((await session('/home')).status).toBe(202);
    await pause(1500);
    expect(smtp.messages).toHaveLength(0);
    expect(slack.received).toHaveLength(0);
    expect(hook.received).toHaveLength(0);

    const organisations = await api('GET', `/v1/workspaces/${ws.uuid}/organisations`);
    const acme = organisations.body.data[0];
    expect(acme.name).toBe('Acme');
    const tagged = await api('POST', `/v1/workspaces/${ws.uuid}/organisations/${acme.uuid}/tags`, {
      tag_name: 'hot',
    });
    expect(tagged.status).toBeLessThan(300);

    // A new session of a member of the segment, on the pricing page.
    expect((await session('/pricing?plan=team')).status).toBe(202);
    await waitFor(() => smtp.messages.length === 1 && slack.received.length === 1);
    const [mail] = smtp.messages;
    expect(mail?.subject).toBe('Acme is visiting site.example');
    expect(mail?.to).toMatchObject({ text: 'sales@site.example' });
    const link = `${PUBLIC_URL}/w/${ws.uuid}/organisations/${acme.uuid}`;
    expect(mail?.text).toContain(link);
    expect(mail?.text).toContain(`${SITE}/pricing?plan=team`);
    expect(mail?.html).toContain(`href="${link.replace('&', '&amp;')}"`);
    expect(header(mail, 'list-unsubscribe-post')).toBe(
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    );

    const message = JSON.parse(slack.received[0]?.body ?? '{}');
    expect(message.text).toContain('Acme');
    expect(message.text).toContain(link);
    expect(JSON.stringify(message.blocks)).toContain(`/pricing?plan=team`);
    expect(message.blocks[1].elements[0].url).toBe(link);

    // page.visited: the receiver failed once (500); the log shows it, then the retry.
    await waitFor(() => hook.received.length >= 1);
    await waitFor(() => hook.received.length === 2, 10_000);
    const [first, second] = hook.received;
    expect(first?.headers['x-footfall-event']).toBe('page.visited');
    expect(second?.headers['x-footfall-delivery']).toBe(first?.headers['x-footfall-delivery']);
    expect(second?.body).toBe(first?.body);
    expect(JSON.parse(second?.body ?? '{}').url).toBe(`${SITE}/pricing?plan=team`);
    let delivery: Record<string, unknown> = {};
    await waitFor(async () => {
      delivery = (await log('pricing')).data[0];
      return delivery.status === 'delivered';
    });
    expect(delivery).toMatchObject({ attempts: 2, last_status_code: 200, kind: 'page.visited' });
    expect((await log('pricing')).total).toBe(1);

    // Within 12 hours: another session, on pricing too, sends nothing more.
    expect((await session('/pricing')).status).toBe(202);
    await pause(2500);
    expect(smtp.messages).toHaveLength(1);
    expect(slack.received).toHaveLength(1);
    expect(hook.received).toHaveLength(2);
    expect((await log('mail')).total).toBe(1);
    expect((await log('off')).total).toBe(0);
  });

  it('shows a failed attempt in the log while the retry is pending', async () => {
    const failing = await startReceiver([500]);
    try {
      const created = await api('POST', `/v1/workspaces/${ws.uuid}/notifications`, {
        name: 'failing',
        trigger: 'organisation.visited',
        channel: { type: 'webhook', url: failing.url, secret: 'a-secret-of-twenty-chars' },
      });
      rules.failing = created.body.data.uuid;
      const sent = await api(
        'POST',
        `/v1/workspaces/${ws.uuid}/notifications/${rules.failing}/test`,
      );
      expect(sent.status).toBe(202);
      expect(sent.body.data).toMatchObject({ test: true, status: 'pending' });
      let entry: Record<string, unknown> = {};
      await waitFor(async () => {
        entry = (await log('failing')).data[0];
        return entry.last_status_code === 500;
      });
      expect(entry).toMatchObject({ uuid: sent.body.data.uuid, last_error: 'answered 500' });
      await waitFor(async () => (await log('failing')).data[0].status === 'failed', 10_000);
      expect((await log('failing')).data[0].attempts).toBe(3);
      expect(failing.received).toHaveLength(3);
    } finally {
      await failing.close();
    }
  });

  it('sends a test at once, marked as a test, about a sample organisation', async () => {
    const before = slack.received.length;
    const sent = await api('POST', `/v1/workspaces/${ws.uuid}/notifications/${rules.slack}/test`);
    expect(sent.status).toBe(202);
    await waitFor(() => slack.received.length === before + 1);
    const message = JSON.parse(slack.received[before]?.body ?? '{}');
    expect(message.text).toContain('[Test]');
    expect(message.text).toContain('Example Organisation');
  });

  it('unsubscribes in one click from the link in the mail, and switches the rule off', async () => {
    const mail = smtp.messages[0];
    const found = /https:\/\/footfall\.example\/notifications\/unsubscribe\/\S+/.exec(
      mail?.text ?? '',
    );
    expect(found).not.toBeNull();
    expect(header(mail, 'list-unsubscribe')).toBe(`List-Unsubscribe: <${found?.[0]}>`);
    const url = (found?.[0] ?? '').replace(PUBLIC_URL, t.url);
    // A forged token is refused.
    const forged = await fetch(`${url.slice(0, -3)}xyz`);
    expect(forged.status).toBe(404);
    // Opening the link only asks (unsubscribe.browser.test.ts has the page in a browser).
    const asked = await fetch(url);
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Unsubscribe from this alert?');
    const oneClick = () =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
    const answer = await oneClick();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/html');
    expect(await answer.text()).toContain('sales@site.example will no longer receive');
    const rule = await api('GET', `/v1/workspaces/${ws.uuid}/notifications/${rules.mail}`);
    expect(rule.body.data).toMatchObject({ enabled: false, channel: { type: 'email', to: [] } });
    // The address is already gone.
    const again = await oneClick();
    expect(again.status).toBe(404);
    expect(await again.text()).toContain('already removed');
  });
});
