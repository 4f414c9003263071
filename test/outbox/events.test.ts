import { randomUUID } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import {
  deliveryTables,
  dropPendingDeliveries,
  forgetDeliveries,
} from '../../src/outbox/deliveries.js';
import {
  type DomainEvent,
  eventValues,
  fanOut,
  recordEvents,
  type Subscriber,
} from '../../src/outbox/events.js';
import { createTestDatabase } from '../helpers/app.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let handle: Db;

/**
 * A subscriber as a new integration would write one: its own `*_deliveries` table, filled
 * from the events it wants. `failing` makes its insert fail (a broken subscriber).
 */
function tableSubscriber(table: string, kinds: string[], failing = false): Subscriber {
  return {
    name: table,
    interest: async () => 'session',
    deliveries: (events: RawBuilder<unknown>) => sql`
      INSERT INTO ${sql.table(table)} (workspace_id, session_id, kind, organisation_id)
      SELECT e.workspace_id, e.session_id,
        ${failing ? sql`(e.kind::int)::text` : sql`e.kind`}, e.organisation_id
      FROM (${events}) e WHERE e.kind = ANY(${kinds}::text[])`,
    start: () => ({ stop: async () => {} }),
  };
}

const rows = async (table: string) =>
  (
    await sql<{
      kind: string;
      workspace_id: string;
      session_id: string | null;
    }>`SELECT kind, workspace_id, session_id FROM ${sql.table(table)} ORDER BY kind`.execute(
      handle.db,
    )
  ).rows;
const pending = async () =>
  Number(
    (await sql<{ n: string }>`SELECT count(*) AS n FROM outbox_events`.execute(handle.db)).rows[0]
      ?.n,
  );
const record = (events: DomainEvent[]) => recordEvents(eventValues(events)).execute(handle.db);

beforeAll(async () => {
  database = await createTestDatabase();
  handle = connect(database.url, 4);
  await migrate(handle.db);
  for (const table of ['fake_deliveries', 'chat_deliveries']) {
    await sql`CREATE TABLE ${sql.table(table)} (
      workspace_id uuid NOT NULL, session_id uuid, kind text NOT NULL, organisation_id uuid,
      status text NOT NULL DEFAULT 'pending')`.execute(handle.db);
  }
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

describe('the event outbox', () => {
  it('hands each recorded event to every subscriber that wants it, once, and keeps none', async () => {
    const workspace = randomUUID();
    const organisation = randomUUID();
    const session = randomUUID();
    await record([
      { kind: 'organisation.identified', workspaceId: workspace, organisationId: organisation },
      {
        kind: 'session.ended',
        workspaceId: workspace,
        organisationId: organisation,
        sessionId: session,
      },
    ]);
    // About no organisation: nobody's business, not even recorded.
    await recordEvents(
      sql`SELECT 'page.visited' AS kind, ${workspace}::uuid AS workspace_id,
        NULL::uuid AS organisation_id, NULL::uuid AS session_id, NULL::bigint AS event_id,
        NULL::uuid AS segment_id, '/'::text AS url, NULL::uuid AS contact_id`,
    ).execute(handle.db);
    expect(await pending()).toBe(2);

    const subscribers = [
      tableSubscriber('fake_deliveries', ['organisation.identified', 'session.ended']),
      tableSubscriber('chat_deliveries', ['session.ended']),
    ];
    expect(await fanOut(handle.db, subscribers)).toBe(2);
    expect(await rows('fake_deliveries')).toEqual([
      { kind: 'organisation.identified', workspace_id: workspace, session_id: null },
      { kind: 'session.ended', workspace_id: workspace, session_id: session },
    ]);
    expect(await rows('chat_deliveries')).toEqual([
      { kind: 'session.ended', workspace_id: workspace, session_id: session },
    ]);
    expect(await pending()).toBe(0);
    expect(await fanOut(handle.db, subscribers)).toBe(0);
    expect(await rows('fake_deliveries')).toHaveLength(2);
  });

  it('keeps the events for the next round when one subscriber fails, so none is lost', async () => {
    await sql`TRUNCATE fake_deliveries, chat_deliveries`.execute(handle.db);
    const event = {
      kind: 'segment.entered' as const,
      workspaceId: randomUUID(),
      organisationId: randomUUID(),
    };
    await record([event]);
    const healthy = tableSubscriber('fake_deliveries', ['segment.entered']);
    const broken = tableSubscriber('chat_deliveries', ['segment.entered'], true);
    await expect(fanOut(handle.db, [healthy, broken])).rejects.toThrow();
    expect(await pending()).toBe(1);
    expect(await rows('fake_deliveries')).toEqual([]);

    const mended = tableSubscriber('chat_deliveries', ['segment.entered']);
    expect(await fanOut(handle.db, [healthy, mended])).toBe(1);
    expect(await rows('fake_deliveries')).toHaveLength(1);
    expect(await rows('chat_deliveries')).toHaveLength(1);
  });

  it('never hands an event out twice when several servers fan out at once', async () => {
    await sql`TRUNCATE fake_deliveries, chat_deliveries`.execute(handle.db);
    const workspaceId = randomUUID();
    await record(
      Array.from({ length: 300 }, () => ({
        kind: 'organisation.returned' as const,
        workspaceId,
        organisationId: randomUUID(),
      })),
    );
    const subscribers = [tableSubscriber('fake_deliveries', ['organisation.returned'])];
    const counts = await Promise.all(
      Array.from({ length: 4 }, () => fanOut(handle.db, subscribers, 50)),
    );
    let rest = 0;
    for (let n = -1; n !== 0; rest += n) n = await fanOut(handle.db, subscribers, 50);
    expect(counts.reduce((a, b) => a + b, 0) + rest).toBe(300);
    const { rows: distinct } = await sql<{ n: number; all: number }>`
      SELECT count(DISTINCT organisation_id) AS n, count(*) AS all FROM fake_deliveries`.execute(
      handle.db,
    );
    expect(distinct[0]).toEqual({ n: 300, all: 300 });
  });

  it('fans out one batch a round even when the statistics say the outbox is empty', async () => {
    await sql`TRUNCATE fake_deliveries, chat_deliveries`.execute(handle.db);
    const workspaceId = randomUUID();
    const returned = (count: number) =>
      record(
        Array.from({ length: count }, () => ({
          kind: 'organisation.returned' as const,
          workspaceId,
          organisationId: randomUUID(),
        })),
      );
    // As autovacuum may find a queue between two rounds: pages of dead rows, none alive.
    await returned(400);
    await sql`DELETE FROM outbox_events`.execute(handle.db);
    await sql`ANALYZE outbox_events`.execute(handle.db);
    await returned(400);
    const subscribers = [tableSubscriber('fake_deliveries', ['organisation.returned'])];
    expect(await fanOut(handle.db, subscribers, 100)).toBe(100);
    expect(await pending()).toBe(300);
    expect(await rows('fake_deliveries')).toHaveLength(100);
    while ((await fanOut(handle.db, subscribers, 100)) > 0);
    expect(await rows('fake_deliveries')).toHaveLength(400);
  });
});

describe("every subscriber's deliveries, in one place", () => {
  it("finds a subscriber's table by its shape, with the webhooks' and the alerts'", async () => {
    expect(await deliveryTables(handle.db)).toEqual([
      'chat_deliveries',
      'crm_deliveries',
      'fake_deliveries',
      'notification_deliveries',
      'webhook_deliveries',
      'zapier_deliveries',
    ]);
  });

  it('forgets the deliveries of the sessions or naming the person, in every table, and nothing else', async () => {
    await sql`TRUNCATE fake_deliveries, chat_deliveries`.execute(handle.db);
    const workspace = randomUUID();
    const [gone, kept] = [randomUUID(), randomUUID()];
    await sql`INSERT INTO fake_deliveries (workspace_id, session_id, kind) VALUES
      (${workspace}, ${gone}, 'session.ended'), (${workspace}, ${kept}, 'session.ended'),
      (${workspace}, NULL, 'about jane@example.com'), (${randomUUID()}, ${gone}, 'other tenant')`.execute(
      handle.db,
    );
    await sql`INSERT INTO chat_deliveries (workspace_id, session_id, kind) VALUES
      (${workspace}, ${gone}, 'session.ended')`.execute(handle.db);
    await record([
      {
        kind: 'session.ended',
        workspaceId: workspace,
        organisationId: randomUUID(),
        sessionId: gone,
      },
    ]);

    const deleted = await forgetDeliveries(handle.db, workspace, [gone], ['%jane@example.com%']);
    expect(deleted).toBe(3);
    expect((await rows('fake_deliveries')).map((row) => row.kind).sort()).toEqual([
      'other tenant',
      'session.ended',
    ]);
    expect(await rows('chat_deliveries')).toEqual([]);
    expect(await pending()).toBe(0);
  });

  it("drops a deleted workspace's pending deliveries and events, and keeps what was sent", async () => {
    await sql`TRUNCATE fake_deliveries, chat_deliveries`.execute(handle.db);
    const workspace = randomUUID();
    await sql`INSERT INTO fake_deliveries (workspace_id, kind, status) VALUES
      (${workspace}, 'pending one', 'pending'), (${workspace}, 'sent one', 'delivered')`.execute(
      handle.db,
    );
    await record([
      { kind: 'organisation.identified', workspaceId: workspace, organisationId: randomUUID() },
    ]);
    await dropPendingDeliveries(handle.db, workspace);
    expect((await rows('fake_deliveries')).map((row) => row.kind)).toEqual(['sent one']);
    expect(await pending()).toBe(0);
  });
});
