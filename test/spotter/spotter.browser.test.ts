import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { ACME, addCompanies } from '../helpers/companies.js';

/** A one-page site on `host` whose head carries whatever snippet is current. */
function site(host: string, snippet: () => string): Promise<Server> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html><head><title>Site</title>${snippet()}</head><body>Hello</body></html>`,
    );
  });
  return new Promise((resolve) => server.listen(0, host, () => resolve(server)));
}
const origin = (server: Server, host: string) =>
  `http://${host}:${(server.address() as AddressInfo).port}`;

let t: TestApp;
let api: ReturnType<typeof client>;
let browser: Browser;
let own: Server;
let foreign: Server;
let ownUrl: string;
let foreignUrl: string;
let snippet = '';
let scriptId = '';

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
  // Loopback visitors belong to Acme, whose directory profile says more than Spotter may.
  await upsertIpRanges(t.database.db, [
    { network: '127.0.0.0/8', domain: 'acme.com', name: 'Acme' },
  ]);
  await addCompanies(t.database.db, [ACME]);
  own = await site('127.0.0.2', () => snippet);
  foreign = await site('127.0.0.3', () => snippet);
  ownUrl = origin(own, '127.0.0.2');
  foreignUrl = origin(foreign, '127.0.0.3');
  const workspace = (await api('POST', '/v1/workspaces', { url: ownUrl })).body.data;
  snippet = workspace.tracking_script_snippet;
  scriptId = workspace.tracking_script_id;

  // Acme becomes known to the workspace by a visit, then gets one visible and one hidden value.
  const ws = workspace.uuid;
  expect(
    (await collector(t.url)(visit(scriptId, [pageview(`${ownUrl}/`, Date.now())]))).status,
  ).toBe(202);
  const [acme] = (await api('GET', `/v1/workspaces/${ws}/organisations`)).body.data;
  for (const [key, type, visible, value] of [
    ['tier', 'text', true, 'gold'],
    ['deal_size', 'number', false, 250000],
    ['account_owner', 'email', false, 'sam@our-company.example'],
  ] as const) {
    await api('POST', `/v1/workspaces/${ws}/custom-fields`, {
      key,
      name: key,
      type,
      visible_in_spotter: visible,
    });
    const put = await api(
      'PUT',
      `/v1/workspaces/${ws}/organisations/${acme.uuid}/custom-fields/${key}`,
      { value },
    );
    expect(put.status).toBe(200);
  }
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  own?.close();
  foreign?.close();
  await t?.close();
});

async function open(url: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(url);
  await page.waitForFunction(
    () => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded,
  );
  return page;
}

/** footfall('spotter', callback) and the promise it returns, as a page sees them. */
const askSpotter = (page: Page) =>
  page.evaluate(async () => {
    const footfall = (globalThis as unknown as { footfall: (...a: unknown[]) => Promise<unknown> })
      .footfall;
    const viaCallback = new Promise((resolve) => footfall('spotter', resolve));
    const viaPromise = await footfall('spotter');
    return { viaCallback: await viaCallback, viaPromise };
  });

describe('Spotter in Chromium', () => {
  it('gives a page of the site its organisation with only the visible custom fields', async () => {
    const page = await open(`${ownUrl}/`);
    const { viaCallback, viaPromise } = await askSpotter(page);
    const expected = {
      name: 'Acme Corporation',
      website: 'https://www.acme.com',
      logo: 'https://logo.example/acme.png',
      industry: 'Software',
      size: '201-500',
      country: 'GB',
      custom_fields: { tier: 'gold' },
    };
    expect(viaCallback).toEqual(expected);
    expect(viaPromise).toEqual(expected);
    await page.context().close();
  });

  it('gives a page of another origin no CORS grant: the tracker answers null', async () => {
    const page = await open(`${foreignUrl}/`);
    const { viaCallback, viaPromise } = await askSpotter(page);
    expect(viaCallback).toBeNull();
    expect(viaPromise).toBeNull();
    const direct = await page.evaluate(async (url) => {
      try {
        await fetch(url);
        return 'read';
      } catch (error) {
        return (error as Error).name;
      }
    }, `${t.url}/spotter/v1/${scriptId}`);
    expect(direct).toBe('TypeError');
    await page.context().close();
  });
});
