import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';
import { startWebhookApp } from '../helpers/webhooks.js';
import { look } from '../web/harness.js';

const PUBLIC_URL = 'https://footfall.example';
const ANA = 'ana@site.example';
const BO = 'bo@site.example';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let browser: Browser;
let api: ReturnType<typeof client>;
let rulePath: string;
// The server's request log (pino, on stdout): the links' tokens must not be in it.
let log = '';
const write = process.stdout.write.bind(process.stdout);

beforeAll(async () => {
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    if (String(chunk).startsWith('{"level"')) {
      log += String(chunk);
      return true;
    }
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
  smtp = await startSmtpServer();
  t = await startWebhookApp({
    SMTP_URL: smtp.url,
    SMTP_FROM: 'alerts@footfall.example',
    PUBLIC_URL,
    LOG_LEVEL: 'info',
  });
  browser = await launchChromium();
  api = client(t.url, (await t.operator()).token);
  const ws = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data;
  const rule = await api('POST', `/v1/workspaces/${ws.uuid}/notifications`, {
    name: 'Hot accounts',
    trigger: 'organisation.visited',
    channel: { type: 'email', to: [ANA, BO] },
  });
  expect(rule.status).toBe(201);
  rulePath = `/v1/workspaces/${ws.uuid}/notifications/${rule.body.data.uuid}`;
});
afterAll(async () => {
  await browser.close();
  await t.close();
  await smtp.close();
  process.stdout.write = write;
});

const to = (address: string) =>
  smtp.messages.filter((mail) => mail.to && 'text' in mail.to && mail.to.text === address);
/** Sends a test alert and waits until each address still on the rule has it. */
async function alert(expected: Record<string, number>): Promise<void> {
  expect((await api('POST', `${rulePath}/test`)).status).toBe(202);
  await until(() => Object.entries(expected).every(([address, n]) => to(address).length === n));
}
/** The address's unsubscribe link from its last alert, on this test server. */
function linkOf(address: string): string {
  const found = /https:\/\/footfall\.example\/notifications\/unsubscribe\/\S+/.exec(
    to(address).at(-1)?.text ?? '',
  );
  expect(found).not.toBeNull();
  return (found?.[0] ?? '').replace(PUBLIC_URL, t.url);
}
const addresses = async () => (await api('GET', rulePath)).body.data.channel.to;

describe('unsubscribe links', () => {
  it('GET only asks (scanners and previews fetch links); the button unsubscribes', async () => {
    await alert({ [ANA]: 1, [BO]: 1 });
    const link = linkOf(ANA);

    // What a mail scanner or a link preview does: it fetches the link.
    const fetched = await fetch(link);
    expect(fetched.status).toBe(200);
    expect(await addresses()).toEqual([ANA, BO]);
    expect(fetched.headers.get('content-type')).toContain('text/html');
    const policy = fetched.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("form-action 'self'");
    expect(policy).not.toContain('script-src');
    const html = await fetched.text();
    expect(html).toContain('<form method="post">');
    expect(html).not.toContain('<script');
    // So the next alert still reaches Ana.
    await alert({ [ANA]: 2, [BO]: 2 });

    // A person opens the link in a browser: a question and a button that asks nothing more.
    const context = await browser.newContext();
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    await page.goto(link);
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent())
      .toBe('Unsubscribe from this alert?');
    expect(await page.getByText(`${ANA} will no longer receive the alert`).count()).toBe(1);
    await look(page, 'unsubscribe-confirm');
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('heading', { name: 'Unsubscribed' }).waitFor();
    expect(
      await page.getByText(`${ANA} will no longer receive the alert “Hot accounts”.`).count(),
    ).toBe(1);
    await look(page, 'unsubscribe-done');
    expect(blocked).toEqual([]);
    await context.close();

    expect(await addresses()).toEqual([BO]);
    await alert({ [BO]: 3 });
    expect(to(ANA)).toHaveLength(2);
    // The link is spent: asked again, it says so.
    const again = await fetch(link);
    expect(again.status).toBe(404);
    expect(await again.text()).toContain('already removed');
  });

  it("a mail client's RFC 8058 one-click POST unsubscribes at once", async () => {
    const link = linkOf(BO);
    // RFC 8058 prefers multipart/form-data; the urlencoded form is covered in alerts.test.ts.
    const body = new FormData();
    body.set('List-Unsubscribe', 'One-Click');
    const answer = await fetch(link, { method: 'POST', body });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain(`${BO} will no longer receive the alert`);
    const rule = (await api('GET', rulePath)).body.data;
    expect(rule).toMatchObject({ enabled: false, channel: { type: 'email', to: [] } });
  });

  it('are logged as requests, without their tokens', () => {
    expect(log).toContain('"url":"/notifications/unsubscribe/…"');
    for (const address of [ANA, BO]) {
      const token = linkOf(address).split('/').at(-1) ?? '';
      expect(log).not.toContain(token.split('.')[1]);
    }
  });
});
