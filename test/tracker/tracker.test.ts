import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackerScript } from '../../src/tracker/build.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://ff.example' });
  api = client(t.url, (await t.operator()).token);
});
afterAll(() => t.close());

describe('the tracker script', () => {
  // docs/performance.md says what each part costs.
  it('weighs at most 2,500 bytes gzipped with every feature in', async () => {
    const { body } = await trackerScript({
      id: 'abcdefghijklmnop',
      endpoint: 'https://footfall.example.org/t/collect',
      spotter: 'https://footfall.example.org/spotter/v1/abcdefghijklmnop',
      gpc: true,
      forms: true,
      clicks: true,
      downloads: true,
    });
    const gzipped = gzipSync(body, { level: 9 }).length;
    expect(gzipped).toBeLessThanOrEqual(2500);
  });

  it('is served per workspace with its flags built in, no-cache and an ETag', async () => {
    const workspace = (await api('POST', '/v1/workspaces', { url: 'https://a.example' })).body.data;
    const url = `${t.url}/t/${workspace.tracking_script_id}.js`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('javascript');
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const body = await first.text();
    expect(body).toContain(`"id":"${workspace.tracking_script_id}"`);
    expect(body).toContain('"endpoint":"https://ff.example/t/collect"');
    expect(body).toContain('"clicks":true');
    const unchanged = await fetch(url, { headers: { 'if-none-match': etag as string } });
    expect(unchanged.status).toBe(304);

    await api('PATCH', `/v1/workspaces/${workspace.uuid}/tracker-features`, {
      click_tracking: false,
    });
    const changed = await fetch(url, { headers: { 'if-none-match': etag as string } });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toContain('"clicks":false');
  });

  it('answers 404 for an unknown script and 410 once unlinked', async () => {
    expect((await fetch(`${t.url}/t/nosuchscript0000.js`)).status).toBe(404);
    const workspace = (await api('POST', '/v1/workspaces', { url: 'https://b.example' })).body.data;
    await api('POST', `/v1/workspaces/${workspace.uuid}/unlink`);
    expect((await fetch(`${t.url}/t/${workspace.tracking_script_id}.js`)).status).toBe(410);
  });
});
