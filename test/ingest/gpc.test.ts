import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { ScriptDirectory } from '../../src/ingest/scripts.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: { uuid: string; tracking_script_id: string };
const SITE = 'https://acme-site.com';
const ACME = { 'x-forwarded-for': '81.2.69.160' };
const GPC = { ...ACME, 'sec-gpc': '1' };

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  api = client(t.url, (await t.operator()).token);
  await upsertIpRanges(t.database.db, [
    { network: '81.2.69.0/24', domain: 'acme.com', name: 'Acme' },
  ]);
  ws = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
});
afterAll(() => t.close());

const privacy = () => `/v1/workspaces/${ws.uuid}/privacy`;
const send = (headers: Record<string, string>) =>
  collector(t.url)(visit(ws.tracking_script_id, [pageview(`${SITE}/`, Date.now())]), headers);
const storedEvents = async () =>
  (
    await t.database.db
      .selectFrom('events')
      .select('id')
      .where('workspace_id', '=', ws.uuid)
      .execute()
  ).length;
const spotter = (headers: Record<string, string>) =>
  client(t.url)('GET', `/spotter/v1/${ws.tracking_script_id}`, undefined, headers);

describe('Global Privacy Control', () => {
  it('is off by default: a GPC browser is tracked', async () => {
    const settings = await api('GET', privacy());
    expect(settings.status).toBe(200);
    expect(settings.body).toEqual({ success: true, data: { honor_gpc: false } });
    expect((await send(GPC)).body).toEqual({ accepted: 1 });
    expect(await storedEvents()).toBe(1);
    expect((await spotter(GPC)).body.data.organisation).toMatchObject({ name: 'Acme' });
  });

  it('changes only when a boolean is sent', async () => {
    expect((await api('PATCH', privacy(), {})).body.data).toEqual({ honor_gpc: false });
    expectFieldError(await api('PATCH', privacy(), { honor_gpc: 'yes' }), 'honor_gpc');
    expectFieldError(await api('PATCH', privacy(), { honor_gpc: null }), 'honor_gpc');
    const on = await api('PATCH', privacy(), { honor_gpc: true });
    expect(on.body).toEqual({ success: true, data: { honor_gpc: true } });
    expect((await api('GET', privacy())).body.data).toEqual({ honor_gpc: true });
  });

  it('once honoured, stores nothing from a browser sending Sec-GPC: 1, and counts why', async () => {
    await sleep(ScriptDirectory.TTL_MS + 100); // the collector's cached flags
    const before = await storedEvents();
    expect((await send(GPC)).body).toEqual({ accepted: 0 });
    expect(await storedEvents()).toBe(before);
    expect((await send(ACME)).body).toEqual({ accepted: 1 });
    expect(await storedEvents()).toBe(before + 1);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/footfall_events_dropped_total\{step="drop_gpc",reason="gpc"\} 1/);
  });

  it('builds the setting into the script and keeps Spotter silent for GPC browsers', async () => {
    const script = await (await fetch(`${t.url}/t/${ws.tracking_script_id}.js`)).text();
    expect(script).toContain('"gpc":true');
    expect((await spotter(GPC)).body).toEqual({ success: true, data: { organisation: null } });
    expect((await spotter(ACME)).body.data.organisation).toMatchObject({ name: 'Acme' });
  });
});
