import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  // Trusting the proxy would let X-Forwarded-Host in too, were the host taken from headers.
  t = await startTestApp({ TRUST_PROXY: 'true' });
  token = (await t.operator()).token;
});
afterAll(() => t.close());

const SPOOFED = { host: 'evil.example', 'x-forwarded-host': 'evil.example' };

/** A request with headers `fetch` would not send as given (Host), over plain HTTP. */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        hostname,
        port,
        method,
        path,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
        );
      },
    );
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('a spoofed Host header', () => {
  it('does not reach the snippet or the page links', async () => {
    const made = await send('POST', '/v1/workspaces', SPOOFED, { url: 'https://acme.example' });
    expect(made.status).toBe(201);
    const workspace = JSON.parse(made.text).data;
    expect(workspace.tracking_script_snippet).not.toContain('evil.example');
    expect(workspace.tracking_script_snippet).toContain(
      `${t.url}/t/${workspace.tracking_script_id}.js`,
    );

    const list = await send('GET', '/v1/workspaces?size=1', SPOOFED);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('evil.example');
    expect(JSON.parse(list.text).path).toBe(`${t.url}/v1/workspaces`);
  });

  it('does not change the tracker script: the same text for every Host, with no host in it', async () => {
    const api = client(t.url, token);
    const { tracking_script_id: id } = (
      await api('POST', '/v1/workspaces', { url: 'https://b.example' })
    ).body.data;
    const honest = await send('GET', `/t/${id}.js`, {});
    const spoofed = await send('GET', `/t/${id}.js`, SPOOFED);
    expect(spoofed.status).toBe(200);
    expect(spoofed.text).not.toContain('evil.example');
    expect(spoofed.text).toBe(honest.text);
    expect(spoofed.headers.etag).toBe(honest.headers.etag);
    // Paths, which the browser resolves against the script's own address.
    expect(spoofed.text).toContain('"endpoint":"/t/collect"');
    expect(spoofed.text).toContain(`"spotter":"/spotter/v1/${id}"`);
  });
});

describe('with PUBLIC_URL', () => {
  it('uses it for the script, the snippet and the links, whatever the Host', async () => {
    const own = await startTestApp({ PUBLIC_URL: 'https://ff.example' });
    try {
      const api = client(own.url, (await own.operator()).token);
      const workspace = (await api('POST', '/v1/workspaces', { url: 'https://c.example' })).body
        .data;
      expect(workspace.tracking_script_snippet).toContain(
        `https://ff.example/t/${workspace.tracking_script_id}.js`,
      );
      const script = await (await fetch(`${own.url}/t/${workspace.tracking_script_id}.js`)).text();
      expect(script).toContain('"endpoint":"https://ff.example/t/collect"');
    } finally {
      await own.close();
    }
  });
});
