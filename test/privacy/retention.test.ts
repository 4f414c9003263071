import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { inTransaction } from '../../src/db/transaction.js';
import { UNKNOWN_LOCATION } from '../../src/identify/geo.js';
import type { VisitEvent } from '../../src/ingest/sessionizer.js';
import { storeVisits } from '../../src/ingest/store.js';
import { deleteExpired, runRetentionIfDue } from '../../src/privacy/retention.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { sessionDeliveries } from '../helpers/webhooks.js';

const DAY = 86_400_000;
const MIN = 60_000;
const SITE = 'https://site.example';
let t: TestApp;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
});
afterAll(() => t.close());

/** A workspace with visits at these ages (each a list of page-view ages), one visitor each. */
async function workspaceWith(visits: number[][], now = Date.now()) {
  const workspace = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  for (const ages of visits) {
    const sent = await collector(t.url)(
      visit(
        workspace.tracking_script_id,
        ages.map((age, i) => pageview(`${SITE}/${i}`, now - age)),
        { visitor: randomUUID() },
      ),
    );
    expect(sent.status).toBe(202);
  }
  return workspace.uuid as string;
}

const rows = async (workspaceId: string) => {
  const db = t.database.db;
  const sessions = await db
    .selectFrom('sessions')
    .select(['id', 'started_at', 'ended_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('started_at')
    .execute();
  const events = await db
    .selectFrom('events')
    .select(['session_id', 'ts'])
    .where('workspace_id', '=', workspaceId)
    .execute();
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select('session_id')
    .where('workspace_id', '=', workspaceId)
    .execute();
  return { sessions, events, deliveries };
};

/** An outbox row carrying each session, as webhook delivery leaves them. */
async function deliveriesFor(workspaceId: string, operatorId: string) {
  const { sessions } = await rows(workspaceId);
  await sessionDeliveries(
    t.database.db,
    workspaceId,
    operatorId,
    sessions.map((session) => session.id),
    true,
  );
}

describe('retention', () => {
  it('runs inside the server with RETENTION_DAYS and deletes what is older', async () => {
    const ws = await workspaceWith([[40 * DAY], [DAY]]);
    expect((await rows(ws)).sessions).toHaveLength(2);
    // A second server over the same database, with retention on.
    const server = await buildApp({ ...t.deps, config: { ...t.deps.config, retentionDays: 30 } });
    try {
      await server.ready();
      let left = (await rows(ws)).sessions.length;
      for (let i = 0; i < 100 && left > 1; i++) {
        await sleep(100);
        left = (await rows(ws)).sessions.length;
      }
      expect(left).toBe(1);
      expect((await rows(ws)).events).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('deletes exactly the sessions, events and deliveries older than the limit, in batches', async () => {
    const now = Date.now();
    const ws = await workspaceWith(
      [
        [45 * DAY, 45 * DAY - 5 * MIN, 45 * DAY - 10 * MIN], // old: three events
        [31 * DAY], // old
        [30 * DAY + MIN], // just past the limit
        [30 * DAY + 10 * MIN, 30 * DAY - 10 * MIN], // started before the limit, ended after: kept whole
        [30 * DAY - MIN], // just within
        [0], // today
      ],
      now,
    );
    const operator = (
      await t.database.db
        .selectFrom('workspace_members')
        .select('user_id')
        .where('workspace_id', '=', ws)
        .executeTakeFirstOrThrow()
    ).user_id;
    await deliveriesFor(ws, operator);
    const other = await workspaceWith([[60 * DAY]], now);
    const before = await rows(ws);
    expect(before.sessions).toHaveLength(6);
    expect(before.events).toHaveLength(9);

    const expired = await deleteExpired(t.database.db, 30, new Date(now), 1);
    const after = await rows(ws);
    const limit = now - 30 * DAY;
    expect(after.sessions).toEqual(before.sessions.filter((s) => s.ended_at.getTime() >= limit));
    expect(after.sessions).toHaveLength(3);
    expect(after.sessions.every((s) => s.ended_at.getTime() >= limit)).toBe(true);
    const kept = new Set(after.sessions.map((s) => s.id));
    expect(after.events).toHaveLength(4);
    expect(after.events.every((e) => kept.has(e.session_id))).toBe(true);
    expect(after.deliveries.map((d) => d.session_id).sort()).toEqual([...kept].sort());
    expect((await rows(other)).sessions).toHaveLength(0);
    expect(expired).toEqual({ sessions: 4, events: 6, deliveries: 3 });
  });

  it('deletes a session that another transaction holds for a moment (the webhook worker marks idle sessions)', async () => {
    const ws = await workspaceWith([[40 * DAY]]);
    const [session] = (await rows(ws)).sessions;
    const held = t.database.db.transaction().execute(async (trx) => {
      await sql`SELECT 1 FROM sessions WHERE workspace_id = ${ws} AND id = ${session?.id} FOR UPDATE`.execute(
        trx,
      );
      await sleep(300);
    });
    await sleep(50);
    const expired = await deleteExpired(t.database.db, 30);
    await held;
    expect(expired.sessions).toBeGreaterThanOrEqual(1);
    expect((await rows(ws)).sessions).toHaveLength(0);
  });

  it("deletes the event a writer's batch adds to a session it is deleting, with the session", async () => {
    const ws = await workspaceWith([[40 * DAY]]);
    const [session] = await t.database.db
      .selectFrom('sessions')
      .select(['visitor_id', 'ended_at'])
      .where('workspace_id', '=', ws)
      .execute();
    if (!session) throw new Error('no session');
    // A visitor's late event, written by the workers' own code in a transaction held open
    // while retention starts: the session is extended but stays older than the limit.
    const late: VisitEvent = {
      visit: {
        workspaceId: ws,
        visitorId: session.visitor_id,
        browser: 'Chrome',
        deviceType: 'desktop',
        location: UNKNOWN_LOCATION,
        organisationId: null,
      },
      event: {
        type: 'pageview',
        ts: new Date(session.ended_at.getTime() + MIN),
        url: `${SITE}/late`,
        data: {},
      },
    };
    let written: () => void = () => {};
    const writing = new Promise<void>((resolve) => {
      written = resolve;
    });
    const held = inTransaction(t.database.db, async (tx) => {
      await storeVisits(tx, [late], 30 * MIN);
      written();
      await sleep(300);
    });
    await writing;
    const expired = await deleteExpired(t.database.db, 30);
    await held;
    expect(expired.sessions).toBeGreaterThanOrEqual(1);
    const after = await rows(ws);
    expect({ sessions: after.sessions.length, events: after.events.length }).toEqual({
      sessions: 0,
      events: 0,
    });
  });

  it('runs once a day however many servers ask, one at a time', async () => {
    const ws = await workspaceWith([[50 * DAY]]);
    const day = new Date(Date.now() + 2 * DAY); // past the run of the first test
    const runs = await Promise.all([1, 2, 3].map(() => runRetentionIfDue(t.database.db, 30, day)));
    expect(runs.filter((run) => run !== null)).toHaveLength(1);
    expect((await rows(ws)).sessions).toHaveLength(0);
    expect(
      await runRetentionIfDue(t.database.db, 30, new Date(day.getTime() + DAY - 1000)),
    ).toBeNull();
    expect(
      await runRetentionIfDue(t.database.db, 30, new Date(day.getTime() + DAY)),
    ).not.toBeNull();
  });
});
