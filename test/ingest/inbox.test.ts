import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/auth/users.js';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { UNKNOWN_LOCATION } from '../../src/identify/geo.js';
import { Identities } from '../../src/identify/identity.js';
import { InboxWorker } from '../../src/ingest/drain.js';
import { inboxSink } from '../../src/ingest/inbox.js';
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

describe('the inbox', () => {
  it('forgets a person’s requests still waiting or kept aside, and the worker stores only the others', async () => {
    const metrics = ingestMetrics();
    const sink = inboxSink(one.db, metrics);
    const worker = new InboxWorker({
      db: one.db,
      write: writeWithin({
        db: one.db,
        idleMs: 1_800_000,
        identities: new Identities(one.db),
        interest: async () => null,
        metrics,
      }),
      metrics,
      batchRequests: 100,
      log: () => {},
    });
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
      SELECT (SELECT count(*) FROM ingest_inbox)::int + (SELECT count(*) FROM ingest_quarantine)::int AS n`.execute(
      one.db,
    );
    expect(left.rows[0]?.n).toBe(1);
    while ((await worker.drainOnce()) > 0);
    const events = await one.db
      .selectFrom('events')
      .select('url')
      .where('workspace_id', '=', on.workspaceId)
      .execute();
    expect(events).toEqual([{ url: 'https://shop.example/kept' }]);
  });
});
