import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, processed, visit } from '../helpers/collect.js';
import { startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';

// Four workspaces gain organisations at once, two of them with small usage limits, through
// two servers on one database (so four writers at a time): the writer's locks (the
// organisations it makes, then visitors, and at its commit the rollups and the month's
// counts) are taken in one order in one transaction.
const WORKSPACES = [
  { limit: 7, webhooks: true },
  { limit: 1000, webhooks: true },
  { limit: 13, webhooks: false },
  { limit: 1000, webhooks: false },
];
const VISITORS = 100; // per workspace, each naming a new organisation
const IN_FLIGHT = 48;

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let second: Awaited<ReturnType<typeof buildApp>>;
let secondUrl: string;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestApp({
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    COLLECT_RATE_LIMIT_PER_IP: '100000',
    COLLECT_RATE_LIMIT_PER_SCRIPT: '100000',
  });
  second = await buildApp(t.deps);
  await second.listen({ port: 0, host: '127.0.0.1' });
  const address = second.server.address();
  secondUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await second.close();
  await t.close();
  await receiver.close();
});

/** Runs the tasks with at most `limit` of them at once. */
async function inParallel<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  return results;
}

describe('the writer under several workspaces gaining organisations at once', () => {
  it('answers every request 202, stores every acknowledged event and keeps each usage limit exactly', async () => {
    const withHooks = client(t.url, (await t.operator()).token);
    const without = client(t.url, (await t.operator()).token);
    expect(
      (
        await withHooks('PATCH', '/radar/operator/v1/webhooks', {
          delivery: { webhook_url: receiver.url, webhook_secret: 'whsec-load-0123456789' },
        })
      ).status,
    ).toBe(200);
    const workspaces: { limit: number; webhooks: boolean; id: string; script: string }[] = [];
    for (const [w, setting] of WORKSPACES.entries()) {
      const api = setting.webhooks ? withHooks : without;
      const made = (await api('POST', '/v1/workspaces', { url: `https://site${w}.example` })).body
        .data;
      expect(
        (await api('PATCH', `/v1/workspaces/${made.uuid}`, { usage_limit: setting.limit })).status,
      ).toBe(200);
      workspaces.push({ ...setting, id: made.uuid as string, script: made.tracking_script_id });
    }
    const sends = [collector(t.url, { wait: false }), collector(secondUrl, { wait: false })];
    let turn = 0;
    const send = (body: unknown) => (sends[turn++ % 2] as ReturnType<typeof collector>)(body);
    const now = Date.now();
    const visitors = workspaces.map(() => Array.from({ length: VISITORS }, () => randomUUID()));
    // Interleaved, so every group holds requests of several workspaces.
    const order = Array.from({ length: VISITORS }, (_, v) => workspaces.map((_, w) => [w, v]))
      .flat()
      .map(([w, v]) => ({ w: w as number, v: v as number }));
    const firstVisits = order.map(({ w, v }) => () => {
      const workspace = workspaces[w] as (typeof workspaces)[number];
      return send(
        visit(
          workspace.script,
          [
            pageview(`https://site${w}.example/`, now - 60_000),
            {
              type: 'identify',
              ts: now - 59_000,
              url: `https://site${w}.example/signup`,
              email: `buyer@org${v}-w${w}.com`,
            },
          ],
          { visitor: visitors[w]?.[v] },
        ),
      );
    });
    const returns = order.map(({ w, v }) => () => {
      const workspace = workspaces[w] as (typeof workspaces)[number];
      return send(
        visit(workspace.script, [pageview(`https://site${w}.example/pricing`, now)], {
          visitor: visitors[w]?.[v],
        }),
      );
    });
    const answers = [
      ...(await inParallel(firstVisits, IN_FLIGHT)),
      ...(await inParallel(returns, IN_FLIGHT)),
    ];
    expect(answers.filter((a) => a.status !== 202).map((a) => a.status)).toEqual([]);
    const acknowledged = answers.reduce((sum, a) => sum + a.body.accepted, 0);
    expect(acknowledged).toBe(workspaces.length * VISITORS * 3);
    // Both servers' workers process the inbox.
    await processed(t.url, 60_000);

    const db = t.database.db;
    for (const workspace of workspaces) {
      const { rows } = await sql<{ events: number; organisations: number; attributed: number }>`
        SELECT (SELECT count(*) FROM events WHERE workspace_id = ${workspace.id})::int AS events,
               (SELECT count(*) FROM organisations WHERE workspace_id = ${workspace.id})::int AS organisations,
               (SELECT count(DISTINCT visitor_id) FROM sessions
                WHERE workspace_id = ${workspace.id} AND organisation_id IS NOT NULL)::int AS attributed`.execute(
        db,
      );
      const expected = Math.min(workspace.limit, VISITORS);
      expect(rows[0]).toEqual({
        events: VISITORS * 3,
        organisations: expected,
        attributed: expected,
      });
    }
    // organisation.identified is written with the organisation, never for one refused; the
    // outbox fans it out to webhook deliveries after the commit.
    await until(async () => {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM outbox_events`.execute(db);
      return rows[0]?.n === 0;
    }, 30_000);
    const { rows: identified } = await sql<{ workspace_id: string; n: number }>`
      SELECT workspace_id, count(*)::int AS n FROM webhook_deliveries
      WHERE event = 'organisation.identified' GROUP BY workspace_id`.execute(db);
    expect(Object.fromEntries(identified.map((row) => [row.workspace_id, row.n]))).toEqual(
      Object.fromEntries(
        workspaces.filter((w) => w.webhooks).map((w) => [w.id, Math.min(w.limit, VISITORS)]),
      ),
    );
  });
});
