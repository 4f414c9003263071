import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';

let t: TestApp;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  api = client(t.url, (await t.operator()).token);
});
afterAll(() => t.close());

const newWorkspace = async (url = 'https://shop.example') =>
  (await api('POST', '/v1/workspaces', { url })).body.data as {
    uuid: string;
    tracking_script_id: string;
  };
const storedUrls = async (workspaceId: string) =>
  (
    await t.database.db
      .selectFrom('events')
      .select('url')
      .where('workspace_id', '=', workspaceId)
      .orderBy('url')
      .execute()
  ).map((e) => e.url);
const dropped = async (step: string, reason: string) => {
  const metrics = await (await fetch(`${t.url}/metrics`)).text();
  const line = new RegExp(
    `^footfall_events_dropped_total\\{step="${step}",reason="${reason}"\\} (\\d+)$`,
    'm',
  );
  return Number(line.exec(metrics)?.[1] ?? 0);
};

describe('workspace filters API', () => {
  it('starts with no excluded ranges and the site’s host and its www. twin', async () => {
    const ws = await newWorkspace('https://www.shop.example/start');
    const answer = await api('GET', `/v1/workspaces/${ws.uuid}/filters`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      data: {
        excluded_ip_ranges: [],
        hostnames: ['www.shop.example', 'shop.example'],
        hostnames_default: true,
      },
    });
  });

  it('takes addresses, ranges and hosts in their normal form; null brings the default back', async () => {
    const ws = await newWorkspace();
    const changed = await api('PATCH', `/v1/workspaces/${ws.uuid}/filters`, {
      excluded_ip_ranges: ['198.51.100.7', '203.0.113.77/24', '2001:db8::1/48'],
      hostnames: ['Shop.Example', '*.shop.example', 'shop.example.'],
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toEqual({
      excluded_ip_ranges: ['198.51.100.7/32', '203.0.113.0/24', '2001:db8::/48'],
      hostnames: ['shop.example', '*.shop.example'],
      hostnames_default: false,
    });
    expect((await api('GET', `/v1/workspaces/${ws.uuid}/filters`)).body.data).toEqual(
      changed.body.data,
    );
    const reset = await api('PATCH', `/v1/workspaces/${ws.uuid}/filters`, { hostnames: null });
    expect(reset.body.data).toMatchObject({
      excluded_ip_ranges: ['198.51.100.7/32', '203.0.113.0/24', '2001:db8::/48'],
      hostnames: ['shop.example', 'www.shop.example'],
      hostnames_default: true,
    });
  });

  it('refuses what is not an address, range or hostname, by field and position', async () => {
    const ws = await newWorkspace();
    const answer = await api('PATCH', `/v1/workspaces/${ws.uuid}/filters`, {
      excluded_ip_ranges: ['10.0.0.0/8', '10.0.0.0/33', 'office'],
      hostnames: ['ok.example', 'bad host', '*.'],
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ success: false });
    expect(Object.keys(answer.body.errors).sort()).toEqual([
      'excluded_ip_ranges.1',
      'excluded_ip_ranges.2',
      'hostnames.1',
      'hostnames.2',
    ]);
    expect(
      (await api('PATCH', `/v1/workspaces/${ws.uuid}/filters`, { hostnames: 'x' })).status,
    ).toBe(422);
    // Nothing of a refused change is kept.
    expect((await api('GET', `/v1/workspaces/${ws.uuid}/filters`)).body.data).toMatchObject({
      excluded_ip_ranges: [],
      hostnames_default: true,
    });
  });

  it('answers 404 for another operator’s workspace', async () => {
    const ws = await newWorkspace();
    const stranger = client(t.url, (await t.operator()).token);
    expect((await stranger('GET', `/v1/workspaces/${ws.uuid}/filters`)).status).toBe(404);
    const patch = await stranger('PATCH', `/v1/workspaces/${ws.uuid}/filters`, {
      hostnames: ['*'],
    });
    expect(patch.status).toBe(404);
  });
});

describe('workspace filters at the collector', () => {
  it('takes pages of the site’s host and its www. twin, and drops and counts other hosts', async () => {
    const ws = await newWorkspace('https://shop.example');
    const before = await dropped('drop_foreign_hostnames', 'foreign_hostname');
    const now = Date.now();
    const answer = await collector(t.url)(
      visit(ws.tracking_script_id, [
        pageview('https://shop.example/a', now),
        pageview('https://www.shop.example/b', now + 1),
        pageview('https://copied-snippet.example/c', now + 2),
        pageview('https://shop.example.copied-snippet.example/d', now + 3),
      ]),
    );
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ accepted: 2 });
    expect(await storedUrls(ws.uuid)).toEqual([
      'https://shop.example/a',
      'https://www.shop.example/b',
    ]);
    expect(await dropped('drop_foreign_hostnames', 'foreign_hostname')).toBe(before + 2);
  });

  it('drops and counts visits from an excluded office range, and takes the others', async () => {
    const ws = await newWorkspace('https://shop.example');
    await api('PATCH', `/v1/workspaces/${ws.uuid}/filters`, {
      excluded_ip_ranges: ['203.0.113.0/24'],
      hostnames: ['shop.example', '*.shop.example'],
    });
    const before = await dropped('drop_excluded_ip_ranges', 'excluded_ip_range');
    const send = collector(t.url);
    const now = Date.now();
    const office = await send(
      visit(ws.tracking_script_id, [pageview('https://shop.example/office', now)]),
      { 'x-forwarded-for': '203.0.113.45' },
    );
    const visitor = await send(
      visit(ws.tracking_script_id, [
        pageview('https://docs.shop.example/visitor', now),
        pageview('https://elsewhere.example/gone', now + 1),
      ]),
      { 'x-forwarded-for': '198.51.100.45' },
    );
    expect([office.status, office.body]).toEqual([202, { accepted: 0 }]);
    expect([visitor.status, visitor.body]).toEqual([202, { accepted: 1 }]);
    expect(await storedUrls(ws.uuid)).toEqual(['https://docs.shop.example/visitor']);
    expect(await dropped('drop_excluded_ip_ranges', 'excluded_ip_range')).toBe(before + 1);
    const sessions = await t.database.db
      .selectFrom('sessions')
      .select('visitor_id')
      .where('workspace_id', '=', ws.uuid)
      .execute();
    expect(sessions).toHaveLength(1);
  });

  it('takes any host once the hostnames are *', async () => {
    const ws = await newWorkspace('https://shop.example');
    await api('PATCH', `/v1/workspaces/${ws.uuid}/filters`, { hostnames: ['*'] });
    const answer = await collector(t.url)(
      visit(ws.tracking_script_id, [pageview('https://partner.example/', Date.now())], {
        visitor: randomUUID(),
      }),
    );
    expect(answer.body).toEqual({ accepted: 1 });
  });
});
