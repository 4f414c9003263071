import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify as identifyOn, pageview, visit } from '../helpers/collect.js';
import { until } from '../helpers/wait.js';

const METRICS_TOKEN = 'metrics-token-for-the-segment-worker';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ METRICS_TOKEN });
});
afterAll(() => t.close());

interface Tenant {
  call: ReturnType<typeof client>;
  ws: string;
  send: (visitor: string, events: Record<string, unknown>[]) => Promise<unknown>;
}

async function tenant(): Promise<Tenant> {
  const call = client(t.url, (await t.operator()).token);
  const workspace = (await call('POST', '/v1/workspaces', { url: 'https://shop.example' })).body
    .data as { uuid: string; tracking_script_id: string };
  return {
    call,
    ws: workspace.uuid,
    send: async (visitor, events) => {
      const answer = await collector(t.url, { metricsToken: METRICS_TOKEN })(
        visit(workspace.tracking_script_id, events, { visitor }),
      );
      expect(answer.status).toBe(202);
    },
  };
}

const where = (field: string, comparison: string, value?: unknown) => ({
  operator: 'AND',
  conditions: [{ field, comparison, ...(value !== undefined && { value }) }],
});
const identify = (email: string, ts: number) => identifyOn('https://shop.example/', email, ts);
const membersOf = async ({ call, ws }: Tenant, segment: string) =>
  (await call('GET', `/v1/workspaces/${ws}/organisations?segmentUuid=${segment}`)).body.data.map(
    (organisation: { website: string }) => new URL(organisation.website).hostname,
  );
const segment = async ({ call, ws }: Tenant, name: string, filters: unknown) =>
  (await call('POST', `/v1/workspaces/${ws}/segments`, { name, filters })).body.uuid as string;
/** A number field, and a value of it for the tenant's (only) organisation. */
async function numberValue({ call, ws }: Tenant, key: string, value: number): Promise<void> {
  await call('POST', `/v1/workspaces/${ws}/custom-fields`, { key, name: key, type: 'number' });
  const [org] = (await call('GET', `/v1/workspaces/${ws}/organisations`)).body.data;
  const put = await call(
    'PUT',
    `/v1/workspaces/${ws}/organisations/${org.uuid}/custom-fields/${key}`,
    {
      value,
    },
  );
  expect(put.status).toBe(200);
}
const segmentRow = (id: string) =>
  t.database.db
    .selectFrom('segments')
    .select(['failures', 'failed_at', 'last_error', 'retry_at', 'refreshed_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
const failuresCounted = async () => {
  const metrics = await fetch(`${t.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const line = (await metrics.text())
    .split('\n')
    .find((row) => row.startsWith('footfall_segment_failures_total '));
  return Number(line?.split(' ')[1] ?? Number.NaN);
};

describe('the segment worker isolates failures', () => {
  it('skips, marks and counts a segment that cannot be evaluated; other tenants go on', async () => {
    const poisoned = await tenant();
    const healthy = await tenant();

    // A tenant whose data the database can no longer evaluate: a number field's stored
    // value that is not a number (as values checked by older rules may be).
    const ann = randomUUID();
    await poisoned.send(ann, [identify('ann@poisoned.example', Date.now())]);
    await numberValue(poisoned, 'score', 10);
    const scored = await segment(poisoned, 'High score', where('score', 'greater_than', 5));
    const pricing = await segment(poisoned, 'Pricing', where('url', 'contains', '/pricing'));
    expect(await membersOf(poisoned, scored)).toEqual(['poisoned.example']);
    await sql`UPDATE custom_field_values SET value = '"very high"' WHERE key = 'score'`.execute(
      t.database.db,
    );
    const counted = await failuresCounted();

    // The poisoned tenant's organisation is queued first and fails...
    await poisoned.send(ann, [pageview('https://shop.example/pricing', Date.now())]);
    await until(async () => (await segmentRow(scored)).failures > 0, 10_000);

    // ...and another tenant's segment still gains its member within seconds.
    const visited = await segment(healthy, 'Pricing', where('url', 'contains', '/pricing'));
    await healthy.send(randomUUID(), [
      identify('bob@healthy.example', Date.now()),
      pageview('https://shop.example/pricing', Date.now()),
    ]);
    const started = Date.now();
    await until(
      async () => (await membersOf(healthy, visited)).includes('healthy.example'),
      10_000,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    // The poisoned tenant's other segment follows too: only the broken one is skipped.
    await until(async () => (await membersOf(poisoned, pricing)).includes('poisoned.example'));

    // Marked: how often, when, why (an SQLSTATE, not the value), and not before its back-off.
    const marked = await segmentRow(scored);
    expect(marked.failures).toBeGreaterThanOrEqual(1);
    expect(marked.last_error).toBe('SQLSTATE 22P02');
    expect(marked.refreshed_at).toBeNull();
    expect((marked.retry_at as Date).getTime()).toBeGreaterThan(Date.now());
    // Counted.
    await until(async () => (await failuresCounted()) > counted);
  });

  it('does not retry a failing segment first forever: due segments of others are computed', async () => {
    const poisoned = await tenant();
    const healthy = await tenant();
    await poisoned.send(randomUUID(), [identify('cy@broken.example', Date.now())]);
    await numberValue(poisoned, 'seats', 3);
    const broken = await segment(poisoned, 'Small', where('seats', 'less_than', 10));
    await healthy.send(randomUUID(), [identify('di@tagged.example', Date.now())]);
    const tagged = await segment(healthy, 'Tagged', where('tag', 'equal', 'hot'));

    // Both due for a full computation; only the full computation can find the tag, which
    // is written behind the API's back.
    await sql`UPDATE custom_field_values SET value = '"three"' WHERE key = 'seats'`.execute(
      t.database.db,
    );
    const [healthyOrg] = (await healthy.call('GET', `/v1/workspaces/${healthy.ws}/organisations`))
      .body.data;
    await sql`INSERT INTO organisation_tags (workspace_id, organisation_id, name)
      VALUES (${healthy.ws}, ${healthyOrg.uuid}, 'hot')`.execute(t.database.db);
    await sql`UPDATE segments SET refreshed_at = NULL WHERE id IN (${broken}, ${tagged})`.execute(
      t.database.db,
    );

    await until(async () => (await membersOf(healthy, tagged)).includes('tagged.example'), 10_000);
    await until(async () => (await segmentRow(broken)).failures > 0);
    // One failure in its back-off, not one a round.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await segmentRow(broken)).failures).toBe(1);
  });
});
