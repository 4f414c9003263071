import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { collector, pageview, visit } from '../helpers/collect.js';

const SITE = 'https://acme-site.example';

let t: TestApp;
let api: ReturnType<typeof client>;
let script: string;

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
  script = (await api('POST', '/v1/workspaces', { url: SITE })).body.data.tracking_script_id;
});
afterAll(() => t.close());

const preflight = (path: string) =>
  fetch(`${t.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://elsewhere.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    },
  });

describe('security headers', () => {
  it('come with API answers, errors and unknown paths alike', async () => {
    for (const answer of [
      await api('GET', '/v1/workspaces'),
      await client(t.url)('GET', '/v1/workspaces'),
      await client(t.url)('GET', '/no/such/path'),
      await client(t.url)('GET', '/healthz'),
    ]) {
      const headers = answer.headers;
      expect(headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      expect(headers.get('x-frame-options')).toBe('DENY');
      expect(headers.get('referrer-policy')).toBe('no-referrer');
      expect(headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(headers.get('cross-origin-resource-policy')).toBe('same-origin');
    }
  });

  it('let other sites load the tracker script and call the collector and Spotter', async () => {
    const tracker = await fetch(`${t.url}/t/${script}.js`);
    expect(tracker.status).toBe(200);
    expect(tracker.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(tracker.headers.get('x-content-type-options')).toBe('nosniff');

    const collected = await collector(t.url)(visit(script, [pageview(`${SITE}/`, Date.now())]));
    expect(collected.status).toBe(202);
    expect(collected.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(collected.headers.get('access-control-allow-origin')).toBe('*');

    const spotter = await fetch(`${t.url}/spotter/v1/${script}`, { headers: { origin: SITE } });
    expect(spotter.status).toBe(200);
    expect(spotter.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(spotter.headers.get('access-control-allow-origin')).toBe(SITE);
  });
});

describe('CORS', () => {
  it('answers the preflight of /t/collect for any origin', async () => {
    const answer = await preflight('/t/collect');
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-allow-methods')).toBe('POST');
    expect(answer.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'content-type',
    );
  });

  it.each([
    '/v1/workspaces',
    '/radar/operator/v1/webhooks',
    '/openapi.json',
    '/metrics',
    '/no/such/path',
  ])('gives no other path a preflight answer or CORS headers: %s', async (path) => {
    const answer = await preflight(path);
    expect(answer.status).not.toBe(204);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(answer.headers.get('access-control-allow-methods')).toBeNull();
    const plain = await fetch(`${t.url}${path}`, { headers: { origin: 'https://x.example' } });
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the API reference at /docs', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it('renders in a browser under its own policy, with nothing refused', async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    page.on('pageerror', (error) => refused.push(error.message));
    const answer = await page.goto(`${t.url}/docs`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect
      .poll(() => page.getByRole('heading', { name: /Footfall API/ }).count(), { timeout: 15_000 })
      .toBeGreaterThan(0);
    // An operation from the document is listed, so the UI fetched and drew it.
    await expect
      .poll(() => page.getByText('/v1/workspaces').count(), { timeout: 15_000 })
      .toBeGreaterThan(0);
    expect(refused).toEqual([]);
    await page.close();
  });
});
