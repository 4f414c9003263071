import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { expectShape } from '../helpers/shape.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
let script: string;
const SITE = 'https://acme-site.com';
const ACME_IP = '81.2.69.160';
const GLOBEX_IP = '1.1.1.1';
const UNKNOWN_IP = '8.8.4.4';

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  api = client(t.url, (await t.operator()).token);
  await upsertIpRanges(t.database.db, [
    { network: '81.2.69.0/24', domain: 'acme.com', name: 'Acme' },
    { network: '1.1.1.0/24', domain: 'globex.com', name: 'Globex' },
  ]);
  const workspace = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  ws = workspace.uuid;
  script = workspace.tracking_script_id;
  const sent = await collector(t.url)(visit(script, [pageview(`${SITE}/`, Date.now())]), {
    'x-forwarded-for': ACME_IP,
  });
  expect(sent.status).toBe(202);
});
afterAll(() => t.close());

function spotter(
  from: string,
  headers: Record<string, string> = {},
  query = '',
  scriptId = script,
) {
  return client(t.url)('GET', `/spotter/v1/${scriptId}${query}`, undefined, {
    'x-forwarded-for': from,
    ...headers,
  });
}

describe('GET /spotter/v1/{tracking_script_id}', () => {
  it("answers a page of the workspace's site with the caller's organisation, and only the public fields", async () => {
    const answer = await spotter(ACME_IP, { origin: SITE });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(answer.headers.get('vary')).toContain('Origin');
    expect(answer.headers.get('cache-control')).toBe('private, max-age=300');
    expectShape(answer.body, { success: 'boolean', data: 'object' });
    expectShape(answer.body.data, { organisation: 'object' });
    expectShape(answer.body.data.organisation, {
      name: 'string',
      website: 'string',
      logo: 'string',
      industry: 'string',
      size: 'string',
      country: 'string',
      custom_fields: 'object',
    });
    expect(answer.body.data.organisation).toEqual({
      name: 'Acme',
      website: 'https://acme.com',
      logo: '',
      industry: '',
      size: '',
      country: '',
      custom_fields: {},
    });
  });

  it('grants the site with or without www., and nobody else', async () => {
    const twin = await spotter(ACME_IP, { origin: 'https://www.acme-site.com' });
    expect(twin.status).toBe(200);
    expect(twin.headers.get('access-control-allow-origin')).toBe('https://www.acme-site.com');
    for (const origin of [
      'http://acme-site.com',
      'https://acme-site.com:8443',
      'https://evil.example',
      'https://acme-site.com.evil.example',
      'null',
    ]) {
      const refused = await spotter(ACME_IP, { origin });
      expect(refused.status, origin).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect(refused.body).toEqual({ success: false, message: expect.any(String) });
    }
  });

  it('answers null for a caller no resolver names, and for one the workspace has not seen', async () => {
    const unknown = await spotter(UNKNOWN_IP, { origin: SITE });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ success: true, data: { organisation: null } });
    // Globex's range is known, but it never visited: Spotter does not create organisations.
    const unseen = await spotter(GLOBEX_IP, { origin: SITE });
    expect(unseen.body.data.organisation).toBeNull();
  });

  it('names an identified visitor by its visitor id, as the collector does', async () => {
    const visitor = randomUUID();
    await collector(t.url)(
      visit(
        script,
        [{ type: 'identify', ts: Date.now(), url: `${SITE}/`, email: 'jane@initrode.com' }],
        { visitor },
      ),
      { 'x-forwarded-for': UNKNOWN_IP },
    );
    const answer = await spotter(UNKNOWN_IP, { origin: SITE }, `?visitor=${visitor}`);
    expect(answer.body.data.organisation).toMatchObject({
      name: 'initrode.com',
      website: 'https://initrode.com',
    });
    const someoneElse = await spotter(UNKNOWN_IP, { origin: SITE }, `?visitor=${randomUUID()}`);
    expect(someoneElse.body.data.organisation).toBeNull();
    expectFieldError(await spotter(UNKNOWN_IP, { origin: SITE }, '?visitor=nope'), 'visitor');
  });

  it('answers 404 for an unknown script and 410 once unlinked', async () => {
    expect((await spotter(ACME_IP, {}, '', 'nosuchscript0000')).status).toBe(404);
    const other = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
    await api('POST', `/v1/workspaces/${other.uuid}/unlink`);
    expect((await spotter(ACME_IP, {}, '', other.tracking_script_id)).status).toBe(410);
    expect(ws).toBeTruthy();
  });
});

describe('Spotter rate limit', () => {
  it('answers 429 with Retry-After past SPOTTER_RATE_LIMIT_PER_IP per minute', async () => {
    const limited = await startTestApp({ SPOTTER_RATE_LIMIT_PER_IP: '2' });
    try {
      const owner = client(limited.url, (await limited.operator()).token);
      const id = (await owner('POST', '/v1/workspaces', { url: SITE })).body.data
        .tracking_script_id;
      const ask = () => fetch(`${limited.url}/spotter/v1/${id}`);
      expect((await ask()).status).toBe(200);
      expect((await ask()).status).toBe(200);
      const refused = await ask();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
