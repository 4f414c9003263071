import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/auth/users.js';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';
import { UNKNOWN_LOCATION } from '../../src/identify/geo.js';
import { Identities } from '../../src/identify/identity.js';
import { InboxWorker } from '../../src/ingest/drain.js';
import {
  BacklogGauge,
  backlogMetrics,
  INBOX_VACUUM,
  inboxSink,
  vacuumInbox,
} from '../../src/ingest/inbox.js';
import { ingestMetrics } from '../../src/ingest/metrics.js';
import type { IngestRecord } from '../../src/ingest/record.js';
import { writeWithin } from '../../src/ingest/writer.js';
import { forgetPerson } from '../../src/privacy/forget.js';
import { createWorkspace } from '../../src/workspaces/store.js';
import { createTestDatabase } from '../helpers/app.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let one: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  one = connect(database.url, 3);
  await migrate(one.db);
});
afterAll(async () => {
  await one.close();
  await database.drop();
});

async function script() {
  const user = await createUser(one.db, `inbox-${randomUUID()}@example.com`);
  const made = await createWorkspace(one.db, user.id, {
    name: 'inbox',
    url: 'https://shop.example',
    usageLimit: 100,
  });
  return { id: made.tracking_script_id ?? '', workspaceId: made.id };
}

const record = (
  on: { id: string; workspaceId: string },
  visitorId: string,
  url: string,
): IngestRecord => ({
  script: { ...on, siteDomains: ['shop.example'] },
  visitorId,
  agent: { browser: 'Chrome', deviceType: 'desktop' },
  location: UNKNOWN_LOCATION,
  organisation: null,
  events: [{ id: randomUUID(), type: 'pageview', ts: new Date().toISOString(), url, data: {} }],
});

function worker(
  metrics = ingestMetrics(),
  batchRequests = 100,
  options: { gatherMs?: number; batches?: number[] } = {},
) {
  const write = writeWithin({
    db: one.db,
    idleMs: 1_800_000,
    identities: new Identities(one.db),
    interest: async () => null,
    metrics,
  });
  return new InboxWorker({
    db: one.db,
    // The real writer; `batches` records how many requests each of its batches held.
    write: (tx, requests) => {
      options.batches?.push(requests.length);
      return write(tx, requests);
    },
    metrics,
    batchRequests,
    gatherMs: options.gatherMs,
    log: () => {},
  });
}

describe('the inbox', () => {
  it('is processed in large batches however thinly spread over the lanes, and keeps aside what it cannot read', async () => {
    const metrics = ingestMetrics();
    const sink = inboxSink(one.db, metrics);
    const on = await script();
    // 60 visitors, one request each: spread over most of the 32 lanes.
    const visitors = Array.from({ length: 60 }, () => randomUUID());
    await sink.add(visitors.map((visitor, i) => record(on, visitor, `https://shop.example/${i}`)));
    // A row that is no ingest record (written by hand, or by an older version).
    await sql`
      INSERT INTO ingest_inbox (workspace_id, shard, events, record)
      VALUES (${on.workspaceId}, 3, 1, '{"not":"a record"}')`.execute(one.db);
    const lanes = await sql<{ n: number }>`
      SELECT count(DISTINCT shard)::int AS n FROM ingest_inbox`.execute(one.db);
    expect(lanes.rows[0]?.n).toBeGreaterThan(20);

    // One batch of up to 50 takes 50 of them, from as many lanes as that needs.
    expect(await worker(metrics, 50).drainOnce()).toBe(50);
    expect(await worker(metrics, 50).drainOnce()).toBe(11);
    expect(await worker(metrics, 50).drainOnce()).toBe(0);
    const stored = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM events WHERE workspace_id = ${on.workspaceId}`.execute(one.db);
    expect(stored.rows[0]?.n).toBe(60);
    const aside = await sql<{ reason: string; record: unknown }>`
      SELECT reason, record FROM ingest_quarantine WHERE workspace_id = ${on.workspaceId}`.execute(
      one.db,
    );
    expect(aside.rows).toEqual([{ reason: 'unreadable', record: { not: 'a record' } }]);
    const counted = await metrics.registry.getSingleMetricAsString(
      'footfall_ingest_quarantined_total',
    );
    expect(counted).toContain('footfall_ingest_quarantined_total{reason="unreadable"} 1');
  });

  it('sums the inbox once per scrape of /metrics, and again at the next scrape', async () => {
    // The same pool, with every statement that reads the inbox's backlog counted.
    let sums = 0;
    const counted = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: one.pool }),
      log: (event) => {
        if (event.query.sql.includes('sum(events)')) sums++;
      },
    });
    const registry = new Registry();
    backlogMetrics(registry, new BacklogGauge(counted, 1_000_000));
    const waiting = async () =>
      Number(/footfall_ingest_backlog_events (\d+)/.exec(await registry.metrics())?.[1]);
    const sink = inboxSink(one.db, ingestMetrics());
    const on = await script();
    await sink.add([record(on, randomUUID(), 'https://shop.example/a')]);

    const before = await waiting();
    expect(before).toBeGreaterThanOrEqual(1);
    expect(sums).toBe(1); // both gauges, one reading
    await sink.add([
      record(on, randomUUID(), 'https://shop.example/b'),
      record(on, randomUUID(), 'https://shop.example/c'),
    ]);
    expect(await waiting()).toBe(before + 2); // read again, not the last scrape's
    expect(sums).toBe(2);
    await sql`DELETE FROM ingest_inbox WHERE workspace_id = ${on.workspaceId}`.execute(one.db);
  });

  it('lets a steady trickle of requests gather into large batches, or takes them as they come', async () => {
    const on = await script();
    const trickle = async (gatherMs: number) => {
      const batches: number[] = [];
      const running = worker(ingestMetrics(), 100, { gatherMs, batches }).start(1, 20, () => {});
      const sink = inboxSink(one.db, ingestMetrics());
      // 40 requests, one every 15 ms: about 600 ms of a steady load.
      for (let i = 0; i < 40; i++) {
        await sink.add([record(on, randomUUID(), `https://shop.example/trickle/${gatherMs}/${i}`)]);
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      while ((await sql`SELECT 1 FROM ingest_inbox`.execute(one.db)).rows.length > 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await running.stop();
      return batches;
    };
    const asTheyCome = await trickle(0);
    const gathered = await trickle(300);
    expect(asTheyCome.reduce((a, b) => a + b, 0)).toBe(40);
    expect(gathered.reduce((a, b) => a + b, 0)).toBe(40);
    // 600 ms in gatherings of 300 ms (and the first request alone): a handful of batches.
    expect(gathered.length).toBeLessThanOrEqual(5);
    expect(asTheyCome.length).toBeGreaterThan(3 * gathered.length);
    const stored = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM events
      WHERE workspace_id = ${on.workspaceId} AND url LIKE 'https://shop.example/trickle/%'`.execute(
      one.db,
    );
    expect(stored.rows[0]?.n).toBe(80);
  });

  it('is vacuumed once processing has left many dead rows in it, and not before', async () => {
    // What the statistics say: dead rows (other connections' counts arrive up to seconds
    // late, so they are read as at least or at most) and vacuums done.
    const stats = async () => {
      const { rows } = await sql<{ dead: string; vacuums: string }>`
        SELECT n_dead_tup AS dead, vacuum_count AS vacuums FROM pg_stat_user_tables
        WHERE relid = 'ingest_inbox'::regclass`.execute(one.db);
      return { dead: Number(rows[0]?.dead), vacuums: Number(rows[0]?.vacuums) };
    };
    const settled = async (check: (dead: number) => boolean) => {
      for (let tries = 0; tries < 100 && !check((await stats()).dead); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return stats();
    };
    await sql`VACUUM ingest_inbox`.execute(one.db);
    const on = await script();
    const sink = inboxSink(one.db, ingestMetrics());
    const append = (n: number, tag: string) =>
      sink.add(
        Array.from({ length: n }, (_, i) =>
          record(on, randomUUID(), `https://shop.example/vacuum/${tag}/${i}`),
        ),
      );
    // A few processed requests: not worth a vacuum.
    await append(10, 'few');
    await worker(ingestMetrics(), 1_000).drainOnce();
    const few = await settled((dead) => dead >= 10);
    expect(few.dead).toBeGreaterThanOrEqual(10);
    expect(few.dead).toBeLessThan(INBOX_VACUUM.dead);
    expect(await vacuumInbox(one.db)).toBe(false);
    expect((await stats()).vacuums).toBe(few.vacuums);
    // Enough of them: vacuumed.
    await append(INBOX_VACUUM.dead, 'many');
    await worker(ingestMetrics(), 2_000).drainOnce();
    const many = await settled((dead) => dead >= INBOX_VACUUM.dead);
    expect(many.dead).toBeGreaterThanOrEqual(INBOX_VACUUM.dead);
    expect(await vacuumInbox(one.db)).toBe(true);
    const after = await settled((dead) => dead < INBOX_VACUUM.dead);
    expect(after.vacuums).toBe(many.vacuums + 1);
    expect(after.dead).toBeLessThan(INBOX_VACUUM.dead);
  });

  it('forgets a person’s requests still waiting or kept aside, and the worker stores only the others', async () => {
    const metrics = ingestMetrics();
    const sink = inboxSink(one.db, metrics);
    const drain = worker(metrics);
    const on = await script();
    const [forgotten, kept] = [randomUUID(), randomUUID()];
    expect(
      await sink.add([
        record(on, forgotten, 'https://shop.example/waiting'),
        record(on, forgotten, 'https://shop.example/aside'),
        record(on, kept, 'https://shop.example/kept'),
      ]),
    ).toEqual([{ stored: 1 }, { stored: 1 }, { stored: 1 }]);
    // One of the person's requests was kept aside by processing earlier.
    await sql`
      WITH moved AS (
        DELETE FROM ingest_inbox WHERE record::text LIKE '%/aside%'
        RETURNING workspace_id, id, shard, events, received_at, record)
      INSERT INTO ingest_quarantine (workspace_id, id, shard, events, received_at, record, reason)
      SELECT *, 'data' FROM moved`.execute(one.db);

    await forgetPerson(one.db, on.workspaceId, { visitorId: forgotten });
    const left = await sql<{ n: number }>`
      SELECT (SELECT count(*) FROM ingest_inbox WHERE workspace_id = ${on.workspaceId})::int
        + (SELECT count(*) FROM ingest_quarantine WHERE workspace_id = ${on.workspaceId})::int AS n`.execute(
      one.db,
    );
    expect(left.rows[0]?.n).toBe(1);
    while ((await drain.drainOnce()) > 0);
    const events = await one.db
      .selectFrom('events')
      .select('url')
      .where('workspace_id', '=', on.workspaceId)
      .execute();
    expect(events).toEqual([{ url: 'https://shop.example/kept' }]);
  });
});
