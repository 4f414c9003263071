import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
let script: string;
const SITE = 'https://acme-site.com';

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  api = client(t.url, (await t.operator()).token);
  await upsertIpRanges(t.database.db, [
    { network: '203.0.113.0/24', domain: 'acme.com', name: 'Acme' },
    { network: '2001:db8::/32', domain: 'globex.com', name: 'Globex' },
    // The proxy itself: what a request is attributed to when its forwarded address is junk.
    { network: '127.0.0.0/8', domain: 'proxy.example', name: 'Proxy' },
  ]);
  const workspace = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  ws = workspace.uuid;
  script = workspace.tracking_script_id;
});
afterAll(() => t.close());

/** What a trusted proxy may forward, and whom the request is then attributed to. */
const FORWARDED: [string, string | null][] = [
  ['203.0.113.7:5310', 'Acme'],
  ['[2001:db8::7]:443', 'Globex'],
  ['2001:db8::7%eth0', 'Globex'],
  ['fe80::1%eth0', null],
  ['unknown', 'Proxy'],
  ['not an address', 'Proxy'],
  ['203.0.113.999', 'Proxy'],
  ['203.0.113.07', 'Proxy'],
  ['203.0.113', 'Proxy'],
];

describe('a non-IP X-Forwarded-For from a trusted proxy', () => {
  it('reaches the collector as the address it holds, or else the socket address', async () => {
    for (const [forwarded, organisation] of FORWARDED) {
      const visitor = randomUUID();
      const answer = await collector(t.url)(
        visit(script, [pageview(`${SITE}/`, Date.now())], { visitor }),
        { 'x-forwarded-for': forwarded },
      );
      expect(answer.status, forwarded).toBe(202);
      const sessions = await api(
        'GET',
        `/v1/workspaces/${ws}/sessions?date=${new Date().toISOString().slice(0, 10)}&visitor_uuid=${visitor}`,
      );
      const listed = sessions.body.data.map(
        (s: { organisation_uuid: string }) => s.organisation_uuid,
      );
      if (organisation === null) {
        expect(listed, forwarded).toEqual([]);
        continue;
      }
      expect(listed, forwarded).toHaveLength(1);
      const named = await api('GET', `/v1/workspaces/${ws}/organisations/${listed[0]}`);
      expect(named.body.data.name, forwarded).toBe(organisation);
    }
  });

  it('reaches Spotter the same way', async () => {
    // The organisations were made by the collector in the test above.
    for (const [forwarded, organisation] of FORWARDED) {
      const answer = await client(t.url)('GET', `/spotter/v1/${script}`, undefined, {
        'x-forwarded-for': forwarded,
      });
      expect(answer.status, forwarded).toBe(200);
      expect(answer.body.data.organisation?.name ?? null, forwarded).toBe(organisation);
    }
  });
});
