import net from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/** This machine's first address that is not loopback: a client from "elsewhere". */
function outsideAddress(): string {
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
  if (!address) throw new Error('this test needs a network interface besides loopback');
  return address;
}

/**
 * The app also reachable on a non-loopback address: connections accepted there are handed
 * to its HTTP server, so their socket address is that of a client on another interface.
 */
async function reachableFromOutside(t: TestApp): Promise<{ url: string; close(): void }> {
  const host = outsideAddress();
  const listener = net.createServer((socket) => t.app.server.emit('connection', socket));
  await new Promise<void>((resolve) => listener.listen(0, host, resolve));
  const { port } = listener.address() as net.AddressInfo;
  return { url: `http://${host}:${port}`, close: () => listener.close() };
}

const metrics = (base: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/metrics`, { headers });

describe('/metrics without METRICS_TOKEN', () => {
  let t: TestApp;
  let outside: Awaited<ReturnType<typeof reachableFromOutside>>;
  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
    outside = await reachableFromOutside(t);
  });
  afterAll(async () => {
    outside?.close();
    await t?.close();
  });

  it('answers a client on this machine', async () => {
    const answer = await metrics(t.url);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('footfall_');
  });

  it('refuses a client on another address with 403', async () => {
    const answer = await metrics(outside.url);
    expect(answer.status).toBe(403);
    const body = await answer.json();
    expect(body).toEqual({ success: false, message: expect.stringContaining('METRICS_TOKEN') });
  });

  it('refuses what a proxy forwards, whatever address the forwarded header claims', async () => {
    const forwarded: Record<string, string>[] = [
      { 'x-forwarded-for': '127.0.0.1' },
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=127.0.0.1' },
      { 'x-real-ip': '127.0.0.1' },
    ];
    for (const headers of forwarded) {
      expect((await metrics(t.url, headers)).status).toBe(403);
    }
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  let t: TestApp;
  let outside: Awaited<ReturnType<typeof reachableFromOutside>>;
  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN });
    outside = await reachableFromOutside(t);
  });
  afterAll(async () => {
    outside?.close();
    await t?.close();
  });

  it('answers whoever sends the token, from any address', async () => {
    for (const base of [t.url, outside.url]) {
      const answer = await metrics(base, { authorization: `Bearer ${TOKEN}` });
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('footfall_');
    }
  });

  it('refuses a missing or wrong token with 401, the local machine included', async () => {
    const wrong: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: TOKEN },
      { authorization: 'Bearer ' },
    ];
    for (const headers of wrong) {
      const answer = await metrics(t.url, headers);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await answer.json()) as { success: boolean }).success).toBe(false);
    }
    expect((await metrics(outside.url)).status).toBe(401);
  });
});
