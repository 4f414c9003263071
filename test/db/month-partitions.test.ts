import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { againIfTransient } from '../../src/db/failures.js';
import { ensureMonthPartitions, PARTITIONED } from '../../src/db/partitions.js';
import type { Database } from '../../src/db/schema.js';
import { forgetPerson } from '../../src/privacy/forget.js';
import { deleteExpired } from '../../src/privacy/retention.js';
import { deleteWorkspace, purgeDeletedWorkspace } from '../../src/workspaces/purge.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { sessionDeliveries } from '../helpers/webhooks.js';

// Events and sessions are partitioned by month (migration 0034, contract §19): visits on both
// sides of a month's end, through the real collector and workers, then retention, forget and
// purge, each read back from the partitions themselves.

const SITE = 'https://site.example';
const MIN = 60_000;
const DAY = 86_400_000;
// The end of January 2026 and the start of February.
const MIDNIGHT = Date.parse('2026-02-01T00:00:00Z');
let t: TestApp;
let db: Kysely<Database>;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  t = await startTestApp();
  db = t.database.db;
  api = client(t.url, (await t.operator()).token);
  // The months of the visits, as the partitions job made them at the time.
  await sql`SELECT create_month_partitions(t, '2026-01-01', '2026-02-01')
    FROM unnest(${PARTITIONED}::text[]) t`.execute(db);
});
afterAll(() => t.close());

async function workspace() {
  const made = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  return { id: made.uuid as string, script: made.tracking_script_id as string };
}

/** Each of the workspace's sessions and events with the partition holding it. */
async function placed(workspaceId: string) {
  const { rows: sessions } = await sql<{ id: string; visitor: string; partition: string }>`
    SELECT id, visitor_id AS visitor, tableoid::regclass::text AS partition FROM sessions
    WHERE workspace_id = ${workspaceId} ORDER BY started_at`.execute(db);
  const { rows: events } = await sql<{ session: string; url: string; partition: string }>`
    SELECT session_id AS session, url, tableoid::regclass::text AS partition FROM events
    WHERE workspace_id = ${workspaceId} ORDER BY ts`.execute(db);
  return { sessions, events };
}

const attached = async (like: string) =>
  (
    await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = ANY(${PARTITIONED}::regclass[]) AND c.relname LIKE ${like}
      ORDER BY c.relname COLLATE "C"`.execute(db)
  ).rows.map((row) => row.name);

describe('month partitions of events and sessions', () => {
  it('keep a visit across midnight at a month’s end one session, in the month it started', async () => {
    const w = await workspace();
    const send = collector(t.url);
    const [across, after] = [randomUUID(), randomUUID()];
    await send(
      visit(
        w.script,
        [
          pageview(`${SITE}/last-of-january`, MIDNIGHT - 10 * MIN),
          pageview(`${SITE}/first-of-february`, MIDNIGHT + 10 * MIN),
        ],
        { visitor: across },
      ),
    );
    await send(
      visit(w.script, [pageview(`${SITE}/only-february`, MIDNIGHT + 20 * MIN)], { visitor: after }),
    );
    const { sessions, events } = await placed(w.id);
    expect(sessions.map((s) => [s.visitor, s.partition])).toEqual([
      [across, 'sessions_2026_01'],
      [after, 'sessions_2026_02'],
    ]);
    expect(events.map((e) => [e.url, e.partition])).toEqual([
      [`${SITE}/last-of-january`, 'events_2026_01'],
      [`${SITE}/first-of-february`, 'events_2026_02'],
      [`${SITE}/only-february`, 'events_2026_02'],
    ]);
    // Listed with both its views by the API, from a range of its first day alone.
    const organisation = randomUUID();
    await sql`INSERT INTO organisations (workspace_id, id, domain)
      VALUES (${w.id}, ${organisation}, 'across.example')`.execute(db);
    await sql`UPDATE sessions SET organisation_id = ${organisation}
      WHERE workspace_id = ${w.id} AND visitor_id = ${across}`.execute(db);
    const listed = await api(
      'GET',
      `/v1/workspaces/${w.id}/sessions?date_from=2026-01-31&date_to=2026-01-31`,
    );
    expect(listed.status).toBe(200);
    expect(
      listed.body.data.map((s: { views: { url: string }[] }) => s.views.map((v) => v.url)),
    ).toEqual([[`${SITE}/last-of-january`, `${SITE}/first-of-february`]]);
  });

  it('move a session whose start a late event takes into the month before, and keep it one row', async () => {
    const w = await workspace();
    const send = collector(t.url);
    const visitor = randomUUID();
    await send(visit(w.script, [pageview(`${SITE}/a`, MIDNIGHT + 5 * MIN)], { visitor }));
    const before = await placed(w.id);
    expect(before.sessions.map((s) => s.partition)).toEqual(['sessions_2026_02']);
    // Sent late, from before midnight: the same session, now started in January.
    await send(visit(w.script, [pageview(`${SITE}/b`, MIDNIGHT - 5 * MIN)], { visitor }));
    const after = await placed(w.id);
    expect(after.sessions).toEqual([{ ...before.sessions[0], partition: 'sessions_2026_01' }]);
    expect(after.events.map((e) => [e.session, e.partition])).toEqual([
      [before.sessions[0]?.id, 'events_2026_01'],
      [before.sessions[0]?.id, 'events_2026_02'],
    ]);
  });

  it('are made ahead by the partitions job, and take over what the default partition held', async () => {
    const now = new Date('2031-05-17T12:00:00Z');
    expect(await attached('%2031%')).toEqual([]);
    // Rows of a month not made yet go to the default partition, then move into their own.
    const w = await workspace();
    await sql`
      INSERT INTO sessions (workspace_id, id, visitor_id, started_at, ended_at)
      VALUES (${w.id}, ${randomUUID()}, ${randomUUID()}, '2031-06-03T10:00:00Z', '2031-06-03T10:05:00Z')`.execute(
      db,
    );
    expect((await placed(w.id)).sessions.map((s) => s.partition)).toEqual(['sessions_default']);
    // Three months of each table: events and sessions, and the rollups kept of them. Done
    // again if PostgreSQL breaks a deadlock with the server's own writers, as the job is.
    const ensure = () => againIfTransient(() => ensureMonthPartitions(db, now));
    expect(await ensure()).toBe(3 * PARTITIONED.length);
    expect(await attached('%2031%')).toEqual(
      PARTITIONED.flatMap((table) => ['05', '06', '07'].map((m) => `${table}_2031_${m}`)).sort(),
    );
    expect((await placed(w.id)).sessions.map((s) => s.partition)).toEqual(['sessions_2031_06']);
    // Made once: a second run (or another server) makes none.
    expect(await ensure()).toBe(0);
    await sql`DELETE FROM sessions WHERE workspace_id = ${w.id}`.execute(db);
  });

  it('are dropped whole by retention once every session of the month has ended before the limit', async () => {
    const w = await workspace();
    const send = collector(t.url);
    const across = randomUUID();
    await send(
      visit(
        w.script,
        [pageview(`${SITE}/x`, MIDNIGHT - 10 * MIN), pageview(`${SITE}/y`, MIDNIGHT + 10 * MIN)],
        { visitor: across },
      ),
    );
    await send(visit(w.script, [pageview(`${SITE}/z`, MIDNIGHT + 60 * MIN)]));
    // The limit just after midnight: January's last session is still going, so January
    // waits whole, and nothing of it goes row by row.
    const early = await deleteExpired(db, 1, new Date(MIDNIGHT + 5 * MIN + DAY));
    expect(early.sessions).toBe(0);
    const january = PARTITIONED.map((table) => `${table}_2026_01`).sort();
    expect(await attached('%2026_01')).toEqual(january);
    // The next day's run: January goes as a partition, with its last session's February
    // event; February's sessions before the limit go too, row by row.
    const due = await sql<{ january: number; february: number }>`
      SELECT (SELECT count(*) FROM sessions_2026_01)::int AS january,
        (SELECT count(*) FROM sessions_2026_02
         WHERE ended_at < ${new Date(MIDNIGHT + DAY).toISOString()}::timestamptz)::int AS february`.execute(
      db,
    );
    expect(due.rows[0]?.january).toBeGreaterThan(0);
    expect(due.rows[0]?.february).toBeGreaterThan(0);
    // January's sessions delivered to a subscriber, and still in the outbox: they go with the
    // month, not row by row.
    const { id: subscriber } = await t.operator();
    const { rows: januarySessions } = await sql<{ id: string }>`
      SELECT id FROM sessions_2026_01 WHERE workspace_id = ${w.id}`.execute(db);
    await sessionDeliveries(
      db,
      w.id,
      subscriber,
      januarySessions.map(({ id }) => id),
    );
    for (const { id } of januarySessions) {
      await db
        .insertInto('outbox_events')
        .values({ kind: 'session.ended', workspace_id: w.id, session_id: id })
        .execute();
    }
    const expired = await deleteExpired(db, 1, new Date(MIDNIGHT + 2 * DAY));
    expect(await attached('%2026_01')).toEqual([]);
    expect(expired.sessions).toBe((due.rows[0]?.january ?? 0) + (due.rows[0]?.february ?? 0));
    expect(expired.deliveries).toBe(januarySessions.length);
    expect(await placed(w.id)).toEqual({ sessions: [], events: [] });
    const left = await sql<{ deliveries: number; outbox: number }>`
      SELECT (SELECT count(*) FROM webhook_deliveries WHERE workspace_id = ${w.id})::int
          AS deliveries,
        (SELECT count(*) FROM outbox_events WHERE workspace_id = ${w.id})::int AS outbox`.execute(
      db,
    );
    expect(left.rows[0]).toEqual({ deliveries: 0, outbox: 0 });
    const retired = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_class
      WHERE relname ~ ${`^(retired_)?(${PARTITIONED.join('|')})_2026_01$`}`.execute(db);
    expect(retired.rows[0]?.n).toBe(0);
  });

  it('leave forget and purge exact across months', async () => {
    await sql`SELECT create_month_partitions(t, '2026-03-01', '2026-04-01')
      FROM unnest(ARRAY['sessions', 'events']) t`.execute(db);
    const april = Date.parse('2026-04-01T00:00:00Z');
    const w = await workspace();
    const send = collector(t.url);
    const [forgotten, kept] = [randomUUID(), randomUUID()];
    for (const visitor of [forgotten, kept]) {
      await send(
        visit(
          w.script,
          [pageview(`${SITE}/m`, april - 10 * MIN), pageview(`${SITE}/a`, april + 10 * MIN)],
          { visitor },
        ),
      );
    }
    await forgetPerson(db, w.id, { visitorId: forgotten });
    const left = await placed(w.id);
    expect(left.sessions.map((s) => [s.visitor, s.partition])).toEqual([
      [kept, 'sessions_2026_03'],
    ]);
    expect(left.events.map((e) => e.partition)).toEqual(['events_2026_03', 'events_2026_04']);
    await deleteWorkspace(db, w.id);
    await sql`UPDATE workspaces SET deleted_at = now() - interval '1 hour' WHERE id = ${w.id}`.execute(
      db,
    );
    for (let purged = 1; purged > 0; ) purged = await purgeDeletedWorkspace(db);
    const { rows } = await sql<{ n: number }>`
      SELECT (SELECT count(*) FROM sessions WHERE workspace_id = ${w.id})
        + (SELECT count(*) FROM events WHERE workspace_id = ${w.id}) AS n`.execute(db);
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it('count a visitor who came back after the month retention drops as new, once', async () => {
    // Attaching a month can deadlock with the server's jobs still busy with the test before
    // (the purge): PostgreSQL breaks it, and the partitions are made again, as the job does.
    await againIfTransient(() =>
      sql`SELECT create_month_partitions(t, '2026-06-01', '2026-07-01')
        FROM unnest(ARRAY['sessions', 'events']) t`.execute(db),
    );
    const at = (day: string) => Date.parse(`2026-${day}T12:00:00Z`);
    const w = await workspace();
    const send = collector(t.url);
    const [back, once] = [randomUUID(), randomUUID()];
    for (const [visitor, day] of [
      [back, '06-20'],
      [back, '07-03'],
      [back, '07-05'],
      [once, '07-03'],
    ] as const) {
      await send(visit(w.script, [pageview(`${SITE}/${day}`, at(day))], { visitor }));
    }
    const stats = async (from: string) => {
      const answer = await api(
        'GET',
        `/v1/workspaces/${w.id}/stats?date_from=2026-${from}&date_to=2026-07-31`,
      );
      expect(answer.status).toBe(200);
      const { days, totals } = answer.body.data;
      const visitors = (day: string) =>
        days.find((d: { date: string }) => d.date === `2026-${day}`)?.visitors;
      return { totals: totals.visitors, july: [visitors('07-03'), visitors('07-05')] };
    };
    expect(await stats('06-01')).toEqual({ totals: 2, july: [2, 1] });
    // June goes whole (and every older month with it); July stays.
    await deleteExpired(db, 1, new Date(at('07-02')));
    expect(await attached('%2026_06')).toEqual([]);
    // The visitor's first day left is their first: in a range from the dropped month on, and
    // from the day itself.
    expect(await stats('06-01')).toEqual({ totals: 2, july: [2, 1] });
    expect(await stats('07-01')).toEqual({ totals: 2, july: [2, 1] });
    expect(await stats('07-04')).toMatchObject({ totals: 1 });
  });
});
