import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Answer, client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, inOneRateWindow, pageview, visit } from '../helpers/collect.js';

const SITE = 'https://acme-site.example';

let t: TestApp;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  t = await startTestApp({
    TRUST_PROXY: '127.0.0.1',
    COLLECT_RATE_LIMIT_PER_IP: '2',
    COLLECT_RATE_LIMIT_PER_SCRIPT: '3',
    SPOTTER_RATE_LIMIT_PER_IP: '2',
  });
  api = client(t.url, (await t.operator()).token);
});
afterAll(() => t.close());

async function newScript(): Promise<string> {
  return (await api('POST', '/v1/workspaces', { url: SITE })).body.data.tracking_script_id;
}

/** One page view for `script`, as sent from `address` through the trusted proxy. */
const collectFrom = (script: string, address: string) =>
  collector(t.url)(visit(script, [pageview(`${SITE}/`, Date.now())]), {
    'x-forwarded-for': address,
  });

const spotterFrom = (script: string, address: string) =>
  client(t.url)('GET', `/spotter/v1/${script}`, undefined, { 'x-forwarded-for': address });

function expectLimited(answer: Answer): void {
  expect(answer.status).toBe(429);
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(answer.body).toEqual({ success: false, message: expect.any(String) });
}

describe('the collector', () => {
  // Each test's hits in one window of the limits (a test takes a few seconds).
  beforeEach(() => inOneRateWindow(), 30_000);

  it('answers 429 past COLLECT_RATE_LIMIT_PER_SCRIPT, whatever the addresses', async () => {
    const script = await newScript();
    for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      expect((await collectFrom(script, address)).status).toBe(202);
    }
    expectLimited(await collectFrom(script, '10.0.0.4'));
    // Another workspace's script has its own budget.
    expect((await collectFrom(await newScript(), '10.0.0.5')).status).toBe(202);
  });

  it('counts the addresses of one IPv6 /64 as one client', async () => {
    const script = await newScript();
    expect((await collectFrom(script, '2001:db8:1:2::1')).status).toBe(202);
    expect((await collectFrom(script, '2001:db8:1:2:ffff:ffff:ffff:ffff')).status).toBe(202);
    expectLimited(await collectFrom(script, '2001:db8:1:2:abcd::9'));
    // The next /64 is another client.
    expect((await collectFrom(script, '2001:db8:1:3::1')).status).toBe(202);
  });

  it('counts one address once, with or without the port a proxy may add', async () => {
    const script = await newScript();
    expect((await collectFrom(script, '198.51.100.7:5310')).status).toBe(202);
    expect((await collectFrom(script, '198.51.100.7:5311')).status).toBe(202);
    expectLimited(await collectFrom(script, '198.51.100.7'));
  });
});

describe('Spotter', () => {
  it('counts the addresses of one IPv6 /64 as one client', async () => {
    const script = await newScript();
    expect((await spotterFrom(script, '2001:db8:5:6::1')).status).toBe(200);
    expect((await spotterFrom(script, '2001:db8:5:6::2')).status).toBe(200);
    expectLimited(await spotterFrom(script, '2001:db8:5:6:ffff::3'));
    expect((await spotterFrom(script, '2001:db8:5:7::1')).status).toBe(200);
    expect((await spotterFrom(script, '10.1.0.1')).status).toBe(200);
  });
});
