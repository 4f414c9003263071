import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
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
      const answer = await collector(t.url)(
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
const identify = (email: string, ts: number) => ({
  type: 'identify',
  ts,
  url: 'https://shop.example/',
  email,
});
const membersOf = async ({ call, ws }: Tenant, segment: string) =>
  (await call('GET', `/v1/workspaces/${ws}/organisations?segmentUuid=${segment}`)).body.data.map(
    (organisation: { website: string }) => new URL(organisation.website).hostname,
  );
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
    await poisoned.call('POST', `/v1/workspaces/${poisoned.ws}/custom-fields`, {
      key: 'score',
      name: 'Score',
      type: 'number',
    });
    const [org] = (await poisoned.call('GET', `/v1/workspaces/${poisoned.ws}/organisations`)).body
      .data;
    await poisoned.call(
      'PUT',
      `/v1/workspaces/${poisoned.ws}/organisations/${org.uuid}/custom-fields/score`,
      { value: 10 },
    );
    const scored = (
      await poisoned.call('POST', `/v1/workspaces/${poisoned.ws}/segments`, {
        name: 'High score',
        filters: where('score', 'greater_than', 5),
      })
    ).body.uuid as string;
    const pricing = (
      await poisoned.call('POST', `/v1/workspaces/${poisoned.ws}/segments`, {
        name: 'Pricing',
        filters: where('url', 'contains', '/pricing'),
      })
    ).body.uuid as string;
    expect(await membersOf(poisoned, scored)).toEqual(['poisoned.example']);
    await sql`UPDATE custom_field_values SET value = '"very high"' WHERE key = 'score'`.execute(
      t.database.db,
    );
    const counted = await failuresCounted();

    // The poisoned tenant's organisation is queued first and fails...
    await poisoned.send(ann, [pageview('https://shop.example/pricing', Date.now())]);
    await until(async () => (await segmentRow(scored)).failures > 0, 10_000);

    // ...and another tenant's segment still gains its member within seconds.
    const visited = (
      await healthy.call('POST', `/v1/workspaces/${healthy.ws}/segments`, {
        name: 'Pricing',
        filters: where('url', 'contains', '/pricing'),
      })
    ).body.uuid as string;
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
    await poisoned.call('POST', `/v1/workspaces/${poisoned.ws}/custom-fields`, {
      key: 'seats',
      name: 'Seats',
      type: 'number',
    });
    await poisoned.send(randomUUID(), [identify('cy@broken.example', Date.now())]);
    const [org] = (await poisoned.call('GET', `/v1/workspaces/${poisoned.ws}/organisations`)).body
      .data;
    await poisoned.call(
      'PUT',
      `/v1/workspaces/${poisoned.ws}/organisations/${org.uuid}/custom-fields/seats`,
      { value: 3 },
    );
    const broken = (
      await poisoned.call('POST', `/v1/workspaces/${poisoned.ws}/segments`, {
        name: 'Small',
        filters: where('seats', 'less_than', 10),
      })
    ).body.uuid as string;
    await healthy.send(randomUUID(), [identify('di@tagged.example', Date.now())]);
    const tagged = (
      await healthy.call('POST', `/v1/workspaces/${healthy.ws}/segments`, {
        name: 'Tagged',
        filters: where('tag', 'equal', 'hot'),
      })
    ).body.uuid as string;

    // Both due for a full computation; only the full computation can find the tag, which
    // is written behind the API's back.
    await sql`UPDATE custom_field_values SET value = '"three"' WHERE key = 'seats'`.execute(
      t.database.db,
    );
    const [healthyOrg] = (await healthy.call('GET', `/v1/workspaces/${healthy.ws}/organisations`))
      .body.data;
    const healthyId = (
      await t.database.db
        .selectFrom('workspaces')
        .select('id')
        .where('id', '=', healthy.ws)
        .executeTakeFirstOrThrow()
    ).id;
    await sql`INSERT INTO organisation_tags (workspace_id, organisation_id, name)
      VALUES (${healthyId}, ${healthyOrg.uuid}, 'hot')`.execute(t.database.db);
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
