import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/ingest/inbox.js';
import { visitorLocks } from '../../src/ingest/store.js';
import { type Answer, client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, processed, visit } from '../helpers/collect.js';
import { until } from '../helpers/wait.js';

// A value this test's database refuses (a CHECK constraint added below): a write that fails
// in PostgreSQL for one request's data, as a client could cause.
const REFUSED_URL = 'https://site.example/refused-by-the-database';

let t: TestApp;
let send: ReturnType<typeof collector>;
let other: pg.Client;
beforeAll(async () => {
  t = await startTestApp({
    // Requests taken as they come: two sent one after the other go to two batches at once,
    // where requests gathering (INGEST_GATHER_MS) could put them in one.
    INGEST_GATHER_MS: '0',
    COLLECT_RATE_LIMIT_PER_IP: '100000',
    COLLECT_RATE_LIMIT_PER_SCRIPT: '100000',
  });
  send = collector(t.url);
  await sql`ALTER TABLE events ADD CONSTRAINT test_refused_url CHECK (url <> ${sql.lit(REFUSED_URL)})`.execute(
    t.database.db,
  );
  // The first request loads the resolvers' data, which takes long on a busy machine.
  const warm = await workspace();
  expect(
    (await send(visit(warm.script, [pageview('https://site.example/w', Date.now())]))).status,
  ).toBe(202);
  // Another server's (or a person's) transaction on the same database.
  other = new pg.Client({ connectionString: t.deps.config.databaseUrl ?? '' });
  await other.connect();
});
afterAll(async () => {
  await other.end();
  await t.close();
});

async function workspace(usageLimit?: number) {
  const api = client(t.url, (await t.operator()).token);
  const made = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data;
  if (usageLimit !== undefined) {
    await api('PATCH', `/v1/workspaces/${made.uuid}`, { usage_limit: usageLimit });
  }
  return { id: made.uuid as string, script: made.tracking_script_id as string };
}

/** Backends of the app waiting for a lock (the other client's excepted). */
async function waitingForLocks(): Promise<number> {
  const { rows } = await other.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return rows[0].n;
}

/** The sum of a counter's lines whose labels include `labels` (all lines without). */
const metric = async (name: string, labels = '') => {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
};

/**
 * Holds every event insert (a table lock) until released: two requests, sent one after the
 * other, each get a write of their own that waits; what is sent next queues up behind them
 * and then goes into one group.
 */
async function holdingWrites<T>(
  blocked: (visitor: string) => Promise<Answer>,
  queued: () => Promise<T>,
): Promise<{ blocked: Answer[]; queued: T }> {
  await other.query('BEGIN; LOCK TABLE events IN SHARE MODE');
  try {
    const blockedDone: Promise<Answer>[] = [];
    // Visitors in lanes of their own: the worker holding the first's lane would hold the
    // second's too, and the second write would never start.
    const first = randomUUID();
    let second = randomUUID();
    while (shardOf(second) === shardOf(first)) second = randomUUID();
    for (const [waiting, visitor] of [
      [1, first],
      [2, second],
    ] as const) {
      blockedDone.push(blocked(visitor));
      // Generous: a first request of a new workspace is slow while the whole suite runs.
      await until(async () => (await waitingForLocks()) >= waiting, 60_000).catch(async (error) => {
        const { rows } = await other.query(
          `SELECT state, wait_event_type, wait_event, left(query, 120) AS query
             FROM pg_stat_activity WHERE datname = current_database()`,
        );
        throw new Error(`${error.message}; the database's sessions: ${JSON.stringify(rows)}`);
      });
    }
    const queuedDone = queued();
    await sleep(500); // through the pipeline into the writer's queue
    await other.query('COMMIT');
    return { blocked: await Promise.all(blockedDone), queued: await queuedDone };
  } finally {
    await other.query('ROLLBACK').catch(() => {});
  }
}

const eventsOf = async (workspaceId: string) =>
  (
    await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM events WHERE workspace_id = ${workspaceId}`.execute(
      t.database.db,
    )
  ).rows[0]?.n;

describe('a request whose write fails in the database', () => {
  it('is quarantined alone: the 30 requests of another workspace processed with it are stored', async () => {
    const a = await workspace();
    const b = await workspace();
    const now = Date.now();
    // One visitor's requests share a lane of the inbox, so one worker takes them together.
    const visitor = randomUUID();
    const acknowledge = collector(t.url, { wait: false });
    const good = () =>
      acknowledge(
        visit(b.script, [pageview(`https://site.example/${randomUUID()}`, now)], { visitor }),
      );
    const splitsBefore = await metric('footfall_write_splits_total', 'reason="constraint"');
    // The first request's batch waits for a lock on the events table while the rest arrive.
    await other.query('BEGIN; LOCK TABLE events IN SHARE MODE');
    let answers: Answer[];
    try {
      answers = [await good()];
      await until(async () => (await waitingForLocks()) >= 1, 60_000);
      answers.push(
        ...(await Promise.all([
          ...Array.from({ length: 14 }, good),
          acknowledge(visit(a.script, [pageview(REFUSED_URL, now)], { visitor })),
          acknowledge(
            visit(a.script, [{ ...pageview('https://site.example/', now), title: 'A\u0000B' }], {
              visitor,
            }),
          ),
          ...Array.from({ length: 15 }, good),
        ])),
      );
    } finally {
      await other.query('COMMIT');
    }
    const [refused, nul] = answers.slice(15, 17) as [Answer, Answer];
    // Stored raw, so acknowledged; what PostgreSQL cannot hold at all is refused at once.
    expect(refused.status).toBe(202);
    expect(nul.status).toBe(400);
    const ofB = [...answers.slice(0, 15), ...answers.slice(17)];
    expect(ofB.map((answer: Answer) => answer.status)).toEqual(Array(30).fill(202));
    await processed(t.url);
    expect(await eventsOf(b.id)).toBe(30);
    expect(await eventsOf(a.id)).toBe(0);
    const kept = await sql<{ reason: string; workspace_id: string }>`
      SELECT reason, workspace_id FROM ingest_quarantine`.execute(t.database.db);
    expect(kept.rows).toEqual([{ reason: 'constraint', workspace_id: a.id }]);
    // It was processed with the others, and found by splitting the batch.
    expect(await metric('footfall_write_splits_total', 'reason="constraint"')).toBeGreaterThan(
      splitsBefore,
    );
  }, 120_000);

  it('two identifications of one visitor in one group are both stored, without a split', async () => {
    const w = await workspace();
    const visitor = randomUUID();
    const now = Date.now();
    const identify = (email: string, ts: number) =>
      send(
        visit(w.script, [{ type: 'identify', ts, url: 'https://site.example/', email }], {
          visitor,
        }),
      );
    const splitsBefore = await metric('footfall_write_splits_total');
    const answers = await holdingWrites(
      (visitor) => send(visit(w.script, [pageview('https://site.example/x', now)], { visitor })),
      () =>
        Promise.all([
          identify('ann@first-firm.com', now - 2000),
          identify('ann@second-firm.com', now - 1000),
        ]),
    );
    expect(answers.queued.map((answer) => answer.status)).toEqual([202, 202]);
    expect(await eventsOf(w.id)).toBe(4);
    expect(await metric('footfall_write_splits_total')).toBe(splitsBefore);
  });
});

describe('the usage limit', () => {
  it('counts an organisation another server made while this one wrote: its batch is done again', async () => {
    const w = await workspace(2);
    const now = Date.now();
    const identify = (domain: string) =>
      send(
        visit(w.script, [
          { type: 'identify', ts: now, url: 'https://site.example/', email: `it@${domain}` },
        ]),
      );
    expect((await identify('first-firm.com')).status).toBe(202);
    const retriesBefore = await metric('footfall_write_retries_total', 'reason="serialization"');
    // Another server's writer creates the second and, at its commit, holds the month's count.
    await other.query('BEGIN');
    await other.query(
      `INSERT INTO organisations (workspace_id, id, domain) VALUES ($1, gen_random_uuid(), 'other-server.com')`,
      [w.id],
    );
    await other.query(`SELECT workspace_usage_add(ARRAY[$1]::uuid[], ARRAY[1])`, [w.id]);
    // This one read a count of 1, made the third and waits for the count at its own commit.
    const third = identify('third-firm.com');
    await until(async () => (await waitingForLocks()) >= 1);
    await other.query('COMMIT');
    expect((await third).status).toBe(202);
    const { rows } = await sql<{ domain: string }>`
      SELECT domain FROM organisations WHERE workspace_id = ${w.id} ORDER BY domain`.execute(
      t.database.db,
    );
    expect(rows.map((row) => row.domain)).toEqual(['first-firm.com', 'other-server.com']);
    expect(await metric('footfall_write_retries_total', 'reason="serialization"')).toBeGreaterThan(
      retriesBefore,
    );
  });
});

describe('a deadlock', () => {
  it('is retried inside the server: the request is acknowledged and stored', async () => {
    const w = await workspace();
    const email = 'pat@deadlock-firm.com';
    const visitor = randomUUID();
    const retriesBefore = await metric('footfall_write_retries_total', 'reason="deadlock"');
    // The other transaction holds the contact the write will upsert, the write holds the
    // visitor's lock; then the other asks for that too. PostgreSQL ends the write (it
    // waited first; the other checks for deadlocks only after 10 s).
    await other.query("SET deadlock_timeout = '10s'");
    await other.query('BEGIN');
    await other.query(
      'INSERT INTO contacts (workspace_id, id, email) VALUES ($1, gen_random_uuid(), $2)',
      [w.id, email],
    );
    const answer = send(
      visit(w.script, [{ type: 'identify', ts: Date.now(), url: 'https://site.example/', email }], {
        visitor,
      }),
    );
    await until(async () => (await waitingForLocks()) >= 1);
    await other.query(visitorLocks([`${w.id} ${visitor}`]));
    await other.query('COMMIT');
    await other.query('RESET deadlock_timeout');
    expect((await answer).status).toBe(202);
    expect(await eventsOf(w.id)).toBe(1);
    expect(await metric('footfall_write_retries_total', 'reason="deadlock"')).toBeGreaterThan(
      retriesBefore,
    );
  });
});

describe('a session deleted between the read and the write', () => {
  it('gets no events: the batch is done again, and they go to a new session', async () => {
    const w = await workspace();
    const visitor = randomUUID();
    const at = Date.now() - 10 * 60_000;
    await send(visit(w.script, [pageview('https://site.example/first', at)], { visitor }));
    const { rows: stored } = await other.query(
      'SELECT id FROM sessions WHERE workspace_id = $1 AND visitor_id = $2',
      [w.id, visitor],
    );
    const gone = stored[0].id as string;
    const retriesBefore = await metric('footfall_write_retries_total', 'reason="serialization"');
    // Retention (or forget) holds the session: the writer reads it, then waits to update it.
    await other.query('BEGIN');
    try {
      await other.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [gone]);
      const answer = await collector(t.url, { wait: false })(
        visit(w.script, [pageview('https://site.example/second', at + 60_000)], { visitor }),
      );
      expect(answer.status).toBe(202);
      await until(async () => (await waitingForLocks()) > 0);
      await other.query('DELETE FROM events WHERE session_id = $1', [gone]);
      await other.query('DELETE FROM sessions WHERE id = $1', [gone]);
    } finally {
      await other.query('COMMIT');
    }
    await processed(t.url);
    const { rows: sessions } = await other.query(
      `SELECT s.id, array_agg(e.url ORDER BY e.ts) AS urls FROM sessions s
       JOIN events e ON e.workspace_id = s.workspace_id AND e.session_id = s.id
       WHERE s.workspace_id = $1 AND s.visitor_id = $2 GROUP BY s.id`,
      [w.id, visitor],
    );
    expect(sessions).toEqual([{ id: expect.any(String), urls: ['https://site.example/second'] }]);
    expect(sessions[0].id).not.toBe(gone);
    const { rows: orphans } = await other.query(
      'SELECT count(*)::int AS n FROM events WHERE session_id = $1',
      [gone],
    );
    expect(orphans[0].n).toBe(0);
    expect(await metric('footfall_write_retries_total', 'reason="serialization"')).toBeGreaterThan(
      retriesBefore,
    );
  });
});
