import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { shardOf } from '../../src/ingest/inbox.js';
import { client, startSecondApp, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, pageview, processed, visit } from '../helpers/collect.js';
import { until } from '../helpers/wait.js';

// The monthly limit of new organisations (contract §4) with the count kept in
// workspace_usage (migration 0031): a batch reads it without a lock and adds what it created
// with its commit. Here two workers meet on the last room, on the same new organisation, and
// many at once through two servers.

const SITE = 'https://site.example';
let t: TestApp;
let db: Kysely<Database>;
let api: ReturnType<typeof client>;
let other: pg.Client;

beforeAll(async () => {
  t = await startTestApp({
    // Requests taken as they come: two sent one after the other go to two batches at once,
    // where requests gathering (INGEST_GATHER_MS) could put them in one.
    INGEST_GATHER_MS: '0',
    // Two workers in this process, and a request per batch, so that many meet: a worker
    // finding both requests in the inbox would otherwise take both lanes in one batch.
    INGEST_WORKERS: '2',
    INGEST_BATCH: '1',
    COLLECT_RATE_LIMIT_PER_IP: '100000',
    COLLECT_RATE_LIMIT_PER_SCRIPT: '100000',
  });
  db = t.database.db;
  api = client(t.url, (await t.operator()).token);
  other = new pg.Client({ connectionString: t.deps.config.databaseUrl ?? '' });
  await other.connect();
});
afterAll(async () => {
  await other.end();
  await t.close();
});

async function workspace(usageLimit: number) {
  const made = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  await api('PATCH', `/v1/workspaces/${made.uuid}`, { usage_limit: usageLimit });
  return { id: made.uuid as string, script: made.tracking_script_id as string };
}

/** Two visitor ids of different lanes of the inbox, so two workers take them at once. */
function twoLanes(): [string, string] {
  const first = randomUUID();
  for (;;) {
    const second = randomUUID();
    if (shardOf(second) !== shardOf(first)) return [first, second];
  }
}

const metric = async (name: string, labels = '') => {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
};

const waitingForLocks = (n: number) =>
  until(async () => {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'`.execute(
      db,
    );
    return (rows[0]?.n ?? 0) >= n;
  });

/** The workspace's organisations, the visitors attributed to each, and its counted usage. */
async function outcome(workspaceId: string) {
  const { rows } = await sql<{ domain: string; visitors: number }>`
    SELECT o.domain, count(DISTINCT s.visitor_id)::int AS visitors FROM organisations o
    LEFT JOIN sessions s ON s.workspace_id = o.workspace_id AND s.organisation_id = o.id
    WHERE o.workspace_id = ${workspaceId} GROUP BY o.domain ORDER BY o.domain`.execute(db);
  const usage = await sql<{ month: string; organisations: number }>`
    SELECT to_char(month, 'YYYY-MM-DD') AS month, organisations FROM workspace_usage
    WHERE workspace_id = ${workspaceId}`.execute(db);
  const { rows: unattributed } = await sql<{ n: number }>`
    SELECT count(DISTINCT visitor_id)::int AS n FROM sessions
    WHERE workspace_id = ${workspaceId} AND organisation_id IS NULL`.execute(db);
  return {
    organisations: Object.fromEntries(rows.map((row) => [row.domain, row.visitors])),
    usage: usage.rows,
    unattributed: unattributed[0]?.n ?? 0,
  };
}

const thisMonth = () => `${new Date().toISOString().slice(0, 7)}-01`;

/**
 * Sends each visitor's request (a page view of `url` and an identification) and holds both
 * batches at their commit: a third transaction holds the page's rollup row, which every
 * batch adds to just before it counts its organisations. Released once both wait.
 */
async function atOnce(
  w: { id: string; script: string },
  requests: { visitor: string; email: string }[],
  url: string,
): Promise<void> {
  const at = Date.now();
  // The page's row exists, so both batches wait for it.
  await collector(t.url)(visit(w.script, [pageview(url, at)]));
  await other.query('BEGIN');
  try {
    await other.query(
      'SELECT 1 FROM stats_page_days WHERE workspace_id = $1 AND url = $2 FOR UPDATE',
      [w.id, url],
    );
    const acknowledge = collector(t.url, { wait: false });
    for (const { visitor, email } of requests) {
      const answer = await acknowledge(
        visit(w.script, [pageview(url, at + 1), identify(url, email, at + 2)], { visitor }),
      );
      expect(answer.status).toBe(202);
    }
    await waitingForLocks(requests.length);
  } finally {
    await other.query('COMMIT');
  }
  await processed(t.url);
}

describe('the monthly limit of new organisations', () => {
  it('lets one of two workers that both found the last room create its organisation; the other’s visit is stored unattributed', async () => {
    const w = await workspace(2);
    await collector(t.url)(
      visit(w.script, [identify(`${SITE}/`, 'ann@first-firm.com', Date.now())]),
    );
    const retriesBefore = await metric('footfall_write_retries_total', 'reason="serialization"');
    const [a, b] = twoLanes();
    await atOnce(
      w,
      [
        { visitor: a, email: 'bob@second-firm.com' },
        { visitor: b, email: 'cat@third-firm.com' },
      ],
      `${SITE}/last-room`,
    );
    const result = await outcome(w.id);
    // The limit's second organisation is one of the two, whichever committed first.
    const second = Object.keys(result.organisations).filter((d) => d !== 'first-firm.com');
    expect(second).toHaveLength(1);
    expect(['second-firm.com', 'third-firm.com']).toContain(second[0]);
    expect(result.organisations).toEqual({ 'first-firm.com': 1, [second[0] as string]: 1 });
    expect(result.usage).toEqual([{ month: thisMonth(), organisations: 2 }]);
    // The refused visitor (and the page-view-only one) stored, not attributed.
    expect(result.unattributed).toBe(2);
    expect(await metric('footfall_write_retries_total', 'reason="serialization"')).toBeGreaterThan(
      retriesBefore,
    );
    // A known organisation keeps being tracked; a new one is still refused.
    const known = second[0] === 'second-firm.com' ? a : b;
    await collector(t.url)(
      visit(w.script, [pageview(`${SITE}/again`, Date.now())], { visitor: known }),
    );
    await collector(t.url)(
      visit(w.script, [identify(`${SITE}/`, 'dan@fourth-firm.com', Date.now())]),
    );
    const after = await outcome(w.id);
    expect(after.organisations).toEqual(result.organisations);
    expect(after.usage).toEqual([{ month: thisMonth(), organisations: 2 }]);
  });

  it('counts an organisation two workers make at once once, and attributes both visits to it', async () => {
    const w = await workspace(5);
    const [a, b] = twoLanes();
    await atOnce(
      w,
      [
        { visitor: a, email: 'eve@same-firm.com' },
        { visitor: b, email: 'fay@same-firm.com' },
      ],
      `${SITE}/same`,
    );
    const result = await outcome(w.id);
    expect(result.organisations).toEqual({ 'same-firm.com': 2 });
    expect(result.usage).toEqual([{ month: thisMonth(), organisations: 1 }]);
  });

  it('holds exactly with many workers of two servers, and a deleted organisation gives its room back', async () => {
    const w = await workspace(7);
    const second = await startSecondApp(t);
    try {
      const sends = [collector(t.url, { wait: false }), collector(second.url, { wait: false })];
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (sends[i % 2] as ReturnType<typeof collector>)(
            visit(w.script, [
              pageview(`${SITE}/`, Date.now()),
              identify(`${SITE}/signup`, `buyer@org${i}-firm.com`, Date.now()),
            ]),
          ),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(202));
      await processed(t.url, 60_000);
    } finally {
      await second.close();
    }
    const result = await outcome(w.id);
    expect(Object.values(result.organisations)).toEqual(Array(7).fill(1));
    expect(result.unattributed).toBe(33);
    expect(result.usage).toEqual([{ month: thisMonth(), organisations: 7 }]);

    // An organisation deleted (as the mend command does) leaves the month's count.
    const [gone] = Object.keys(result.organisations);
    await sql`DELETE FROM organisations WHERE workspace_id = ${w.id} AND domain = ${gone}`.execute(
      db,
    );
    expect((await outcome(w.id)).usage).toEqual([{ month: thisMonth(), organisations: 6 }]);
    // After the 5 s for which a full workspace is not tried.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    await collector(t.url)(
      visit(w.script, [identify(`${SITE}/signup`, 'buyer@late-firm.com', Date.now())]),
    );
    const after = await outcome(w.id);
    expect(after.organisations['late-firm.com']).toBe(1);
    expect(after.usage).toEqual([{ month: thisMonth(), organisations: 7 }]);
  });
});
