import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { CHROME_UA, pageview, processed, visit } from '../helpers/collect.js';

// POST /t/collect over HTTP is answered ahead of Fastify (src/ingest/beacon.ts); the route
// Fastify keeps answers `inject`. A client must not be able to tell them apart.
let t: TestApp;
let script: string;
let workspaceId: string;

beforeAll(async () => {
  t = await startTestApp();
  const api = client(t.url, (await t.operator()).token);
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://acme-site.example' })).body
    .data;
  script = workspace.tracking_script_id;
  workspaceId = workspace.id;
});
afterAll(async () => {
  await t?.close();
});

const HEADERS_COMPARED = [
  'access-control-allow-origin',
  'access-control-expose-headers',
  'content-type',
  'cross-origin-resource-policy',
  'content-security-policy',
  'x-content-type-options',
  'x-frame-options',
  'retry-after',
];

async function overHttp(path: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${t.url}${path}`, { method: 'POST', headers, body });
  return {
    status: response.status,
    body: JSON.parse(await response.text()),
    headers: Object.fromEntries(HEADERS_COMPARED.map((name) => [name, response.headers.get(name)])),
    requestId: response.headers.get('x-request-id'),
  };
}

async function throughFastify(path: string, body: string, headers: Record<string, string>) {
  const response = await t.app.inject({ method: 'POST', url: path, payload: body, headers });
  const header = (name: string) => {
    const value = response.headers[name];
    return value === undefined ? null : String(value);
  };
  return {
    status: response.statusCode,
    body: response.json(),
    headers: Object.fromEntries(HEADERS_COMPARED.map((name) => [name, header(name)])),
    requestId: header('x-request-id'),
  };
}

const eventsStored = async () =>
  Number(
    (
      await t.database.pool.query('SELECT count(*) FROM events WHERE workspace_id = $1', [
        workspaceId,
      ])
    ).rows[0].count,
  );

describe('POST /t/collect over HTTP', () => {
  const text = { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': CHROME_UA };
  const json = { 'content-type': 'application/json', 'user-agent': CHROME_UA };
  const page = () => [pageview('https://acme-site.example/', Date.now())];
  const cases: [string, () => string, Record<string, string>][] = [
    ['a visit', () => JSON.stringify(visit(script, page())), text],
    ['a visit sent as JSON', () => JSON.stringify(visit(script, page())), json],
    ['not JSON', () => '{"events": [', text],
    ['an empty JSON body', () => '', json],
    ['a body of the wrong shape', () => '{"events": "not a list"}', text],
    ['an unknown script', () => JSON.stringify(visit('no-such-script', page())), text],
    ['a form post', () => 'a=1', { 'content-type': 'application/x-www-form-urlencoded' }],
  ];

  it.each(cases)('answers %s as the Fastify route does', async (_name, body, headers) => {
    const http = await overHttp('/t/collect', body(), headers);
    const fastify = await throughFastify('/t/collect', body(), headers);
    expect(http.status).toBe(fastify.status);
    expect(http.body).toEqual(fastify.body);
    expect(http.headers).toEqual(fastify.headers);
    expect(http.requestId).toMatch(/^[0-9a-f-]{36}$/);
    if (http.status !== 202)
      expect(http.body).toEqual({ success: false, message: expect.any(String) });
  });

  it('keeps a sane X-Request-Id of the caller, and takes a query string', async () => {
    const body = JSON.stringify(
      visit(script, [pageview('https://acme-site.example/q', Date.now())]),
    );
    const answer = await overHttp('/t/collect?from=test', body, {
      ...text,
      'x-request-id': 'r-42',
    });
    expect(answer).toMatchObject({ status: 202, body: { accepted: 1 }, requestId: 'r-42' });
    const insane = await overHttp('/t/collect', body, { ...text, 'x-request-id': 'a b' });
    expect(insane.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 413 to a body over 64 KiB sent without a length, and stores nothing of it', async () => {
    await processed(t.url);
    const before = await eventsStored();
    const big = JSON.stringify(
      visit(script, [pageview(`https://acme-site.example/${'x'.repeat(70_000)}`, Date.now())]),
    );
    // Chunked, so the size is known only while reading.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const sent = httpRequest(
        `${t.url}/t/collect`,
        { method: 'POST', headers: { ...text, 'transfer-encoding': 'chunked' } },
        (response) => {
          let body = '';
          response.on('data', (chunk) => {
            body += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      sent.on('error', reject);
      for (let at = 0; at < big.length; at += 8192) sent.write(big.slice(at, at + 8192));
      sent.end();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({
      success: false,
      message: 'The request body is too large.',
    });
    await processed(t.url);
    expect(await eventsStored()).toBe(before);
  });

  it('leaves other methods on the path to Fastify', async () => {
    const answer = await fetch(`${t.url}/t/collect`, { method: 'PUT', body: '{}' });
    expect(answer.status).toBe(405);
  });
});
