import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, client } from '../helpers/app.js';
import { CHROME_UA, collector, inOneRateWindow, pageview, visit } from '../helpers/collect.js';
import { killStragglers } from '../helpers/process.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

// What `footfall serve` writes at LOG_LEVEL=info, as an operator's log collector gets it.
let server: ServerProcess;
let base: string;
let token: string;

beforeAll(async () => {
  server = await startServerProcess({ COLLECT_RATE_LIMIT_PER_IP: '4' });
  base = server.base;
  token = await server.token('ops@example.com');
});
afterAll(async () => {
  await server?.close();
  killStragglers();
});

/** Sends a request with our own request id, which the server keeps and logs. */
async function send(id: string, method: string, url: string, init: RequestInit = {}) {
  const response = await fetch(`${base}${url}`, {
    method,
    ...init,
    headers: { 'x-request-id': id, 'user-agent': CHROME_UA, ...init.headers },
  });
  await response.arrayBuffer();
  return response.status;
}

describe('the request log', () => {
  it('has one line per request once answered, and none for the tracker, the collector and health checks unless they fail', async () => {
    const api = client(base, token);
    const listed: Answer = await api('GET', '/v1/workspaces', undefined, {
      'x-request-id': 'api-list',
    });
    expect(listed.status).toBe(200);
    const workspace = (await api('POST', '/v1/workspaces', { url: 'https://acme-site.example' }))
      .body.data;
    const script = workspace.tracking_script_id as string;

    // The collector's hits below, up to the flood past its limit, in one window of it.
    await inOneRateWindow();
    const quiet: Record<string, number> = {
      'script-fetch': await send('script-fetch', 'GET', `/t/${script}.js`),
      preflight: await send('preflight', 'OPTIONS', '/t/collect', {
        headers: { origin: 'https://acme-site.example', 'access-control-request-method': 'POST' },
      }),
      'collect-ok': await send('collect-ok', 'POST', '/t/collect', {
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify(visit(script, [pageview('https://acme-site.example/', Date.now())])),
      }),
      healthz: await send('healthz', 'GET', '/healthz'),
      readyz: await send('readyz', 'GET', '/readyz'),
    };
    expect(quiet).toEqual({
      'script-fetch': 200,
      preflight: 204,
      'collect-ok': 202,
      healthz: 200,
      readyz: 200,
    });
    const failing = await send('collect-bad', 'POST', '/t/collect', {
      headers: { 'content-type': 'text/plain' },
      body: '{"events": "not a list"}',
    });
    expect(failing).toBe(400);
    // Past COLLECT_RATE_LIMIT_PER_IP (4 a minute): turned away, counted in /metrics only.
    const flood: number[] = [];
    for (let i = 0; i < 3; i++) {
      flood.push(
        (await collector(base)(visit(script, [pageview('https://acme-site.example/', Date.now())])))
          .status,
      );
    }
    expect(flood).toContain(429);
    expect(await send('nowhere', 'GET', '/no/such/page')).toBe(404);
    expect(await send('bad-url', 'GET', '/v1/workspaces/%zz')).toBe(400);
    await send('unsubscribe', 'GET', '/notifications/unsubscribe/UNSUBSCRIBE-SECRET-42');

    server.child.kill('SIGTERM');
    const { stdout, code } = await server.exit;
    expect(code).toBe(0);
    const lines = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    const about = (id: string) => lines.filter((line) => line.reqId === id);

    expect(about('api-list')).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        req: { id: 'api-list', method: 'GET', url: '/v1/workspaces' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
    for (const id of Object.keys(quiet)) expect(about(id), id).toEqual([]);
    expect(about('collect-bad')).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        req: expect.objectContaining({ method: 'POST', url: '/t/collect' }),
        res: { statusCode: 400 },
      }),
    ]);
    expect(about('nowhere')).toEqual([
      expect.objectContaining({ res: { statusCode: 404 }, msg: 'request completed' }),
    ]);
    // Refused before any route was found: Fastify logs such a request only on arrival.
    expect(about('bad-url')).toEqual([
      expect.objectContaining({
        req: { id: 'bad-url', method: 'GET', url: '/v1/workspaces/%zz' },
        res: { statusCode: 400 },
        msg: 'request completed',
      }),
    ]);
    const requestLines = lines.filter((line) => line.reqId !== undefined);
    expect(requestLines.filter((line) => line.msg === 'incoming request')).toEqual([]);
    expect(requestLines.filter((line) => line.res?.statusCode === 429)).toEqual([]);
    // Only what the serializer gives: no client address, no headers (Authorization, cookies).
    for (const line of requestLines) {
      expect(Object.keys(line.req ?? {}).sort(), JSON.stringify(line)).toEqual(
        line.req ? ['id', 'method', 'url'] : [],
      );
    }
    expect(about('unsubscribe')).toEqual([
      expect.objectContaining({
        req: { id: 'unsubscribe', method: 'GET', url: '/notifications/unsubscribe/…' },
      }),
    ]);
    expect(stdout).not.toContain(token);
    expect(stdout).not.toContain('UNSUBSCRIBE-SECRET-42');
  });
});
