import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, client, startTestApp, type TestApp } from '../helpers/app.js';
import { CHROME_UA, collector, pageview, visit } from '../helpers/collect.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let token: string;
let ws: string;
let script: string;

beforeAll(async () => {
  t = await startTestApp();
  token = (await t.operator()).token;
  api = client(t.url, token);
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://acme-site.com' })).body
    .data;
  ws = workspace.uuid;
  script = workspace.tracking_script_id;
});
afterAll(() => t.close());

/** The contract's error body (§2), without field errors. */
const expectErrorBody = (answer: Answer, status: number) => {
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual({ success: false, message: expect.any(String) });
  expect(answer.headers.get('x-request-id')).toEqual(expect.any(String));
};

/** Sends raw bytes and reads the whole answer, as a client past fetch's checks would. */
function rawRequest(text: string): Promise<{ status: number; headers: string; body: unknown }> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {}); // the server closes after answering; what it sent counts
    socket.on('close', () => {
      const answer = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      if (!status) reject(new Error(`no answer: ${answer.slice(0, 100)}`));
      else resolve({ status, headers: head.toLowerCase(), body: JSON.parse(body) });
    });
    socket.write(text);
  });
}

describe("answers Fastify and Node give on their own carry the contract's body", () => {
  it('414 for a path segment too long to be an id', async () => {
    const answer = await api('GET', `/v1/workspaces/${'x'.repeat(500)}`);
    expectErrorBody(answer, 414);
  });

  it('400 for a path that is not validly percent-encoded', async () => {
    expectErrorBody(await api('GET', '/v1/workspaces/%ED%A0%80'), 400);
    expectErrorBody(await api('GET', `/spotter/v1/%E0%A4%A`), 400);
  });

  it('431 for headers, or a request line, larger than the server reads', async () => {
    for (const request of [
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      `GET /v1/workspaces?name=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]) {
      const answer = await rawRequest(request);
      expect(answer.status).toBe(431);
      expect(answer.headers).toContain('content-type: application/json');
      expect(answer.headers).toMatch(/x-request-id: \S+/);
      expect(answer.body).toEqual({ success: false, message: expect.any(String) });
    }
  });

  it('400 for a request that is not HTTP', async () => {
    const answer = await rawRequest('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ success: false, message: expect.any(String) });
  });
});

describe('writes that are not JSON', () => {
  it('are 415 on the API, whatever the content type', async () => {
    const body = JSON.stringify({ url: 'https://other.example' });
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ]) {
      expectErrorBody(await api('POST', '/v1/workspaces', body, { 'content-type': type }), 415);
    }
    expectErrorBody(
      await api('PATCH', `/v1/workspaces/${ws}`, '{"usage_limit":5}', {
        'content-type': 'text/plain',
      }),
      415,
    );
    expectErrorBody(
      await api(
        'PUT',
        `/v1/workspaces/${ws}/organisations/${randomUUID()}/custom-fields/x`,
        '{"value":1}',
        {
          'content-type': 'text/plain',
        },
      ),
      415,
    );
    // fetch sends a string body as text/plain unless told otherwise.
    const response = await fetch(`${t.url}/v1/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body,
    });
    expect(response.status).toBe(415);
    // JSON, with or without a charset, is taken.
    const taken = await api('PATCH', `/v1/workspaces/${ws}`, '{"usage_limit":5}', {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(taken.status).toBe(200);
    expect(taken.body.data.usage_limit).toBe('5');
  });

  it('are still taken by the collector as text/plain and application/json', async () => {
    for (const type of ['text/plain;charset=UTF-8', 'application/json']) {
      const answer = await collector(t.url)(
        visit(script, [pageview('https://acme-site.com/', Date.now())]),
        {
          'content-type': type,
        },
      );
      expect(answer.status, type).toBe(202);
    }
  });
});

describe('methods a path does not take', () => {
  it('are 405 with Allow; unknown paths stay 404', async () => {
    const cases: [string, string, string[]][] = [
      ['DELETE', '/v1/workspaces', ['GET', 'HEAD', 'POST']],
      ['PUT', `/v1/workspaces/${ws}`, ['DELETE', 'GET', 'HEAD', 'PATCH']],
      ['POST', `/v1/workspaces/${ws}/sessions`, ['GET', 'HEAD']],
      // GET /t/{file} is the script's route, which /t/collect fits too.
      ['PUT', '/t/collect', ['GET', 'HEAD', 'POST']],
      ['PATCH', `/spotter/v1/${script}`, ['GET', 'HEAD']],
    ];
    for (const [method, path, allowed] of cases) {
      const answer = await api(method, path, method === 'GET' ? undefined : {});
      expect(answer.status, `${method} ${path}`).toBe(405);
      expect(answer.body).toEqual({ success: false, message: expect.any(String) });
      const allow = (answer.headers.get('allow') ?? '').split(', ');
      // A CORS preflight may add OPTIONS; the methods of the path are all there.
      expect(allow.filter((item) => item !== 'OPTIONS').sort()).toEqual(allowed);
    }
    for (const path of ['/v1/nothing-here', '/nothing', `/v1/workspaces/${ws}/nothing`]) {
      const answer = await api('DELETE', path);
      expect(answer.status, path).toBe(404);
      expect(answer.headers.get('allow')).toBeNull();
    }
    // The methods a path does take answer as before.
    expect(
      (await client(t.url)('GET', `/spotter/v1/${script}`, undefined, { 'user-agent': CHROME_UA }))
        .status,
    ).toBe(200);
  });
});
