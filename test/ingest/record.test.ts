import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/auth/users.js';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { defaultCityDatabases, GeoLocator } from '../../src/identify/geo.js';
import { Identities, identityResolver } from '../../src/identify/identity.js';
import { parseCollectBody } from '../../src/ingest/body.js';
import { InboxWorker } from '../../src/ingest/drain.js';
import { inboxSink } from '../../src/ingest/inbox.js';
import { ingestMetrics } from '../../src/ingest/metrics.js';
import { type IngestContext, ingestSteps, runPipeline } from '../../src/ingest/pipeline.js';
import { type IngestRecord, recordOf } from '../../src/ingest/record.js';
import { findTrackingScript } from '../../src/ingest/scripts.js';
import type { IngestSink } from '../../src/ingest/sink.js';
import { writeWithin } from '../../src/ingest/writer.js';
import { interestOf } from '../../src/outbox/events.js';
import { SUBSCRIBERS } from '../../src/subscribers.js';
import { createWorkspace } from '../../src/workspaces/store.js';
import { createTestDatabase } from '../helpers/app.js';
import { CHROME_UA, identify, pageview, visit } from '../helpers/collect.js';

// London in the bundled DB-IP data.
const CLIENT_IP = '81.2.69.160';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let one: Db;
let geo: GeoLocator;
let identities: Identities;
let sink: IngestSink;
let worker: InboxWorker;

beforeAll(async () => {
  database = await createTestDatabase();
  one = connect(database.url, 2);
  await migrate(one.db);
  geo = await GeoLocator.open(defaultCityDatabases());
  identities = new Identities(one.db);
  const metrics = ingestMetrics();
  sink = inboxSink(one.db, metrics);
  worker = new InboxWorker({
    db: one.db,
    write: writeWithin({
      db: one.db,
      idleMs: 1_800_000,
      identities,
      interest: (workspaceId) => interestOf(SUBSCRIBERS)(one.db, workspaceId),
      metrics,
    }),
    metrics,
    batchRequests: 100,
    log: () => {},
  });
});
afterAll(async () => {
  await sink.flush();
  await one.close();
  await database.drop();
});

async function workspace() {
  const user = await createUser(one.db, `record-${randomUUID()}@example.com`);
  const made = await createWorkspace(one.db, user.id, {
    name: 'record',
    url: 'https://shop.example',
    usageLimit: 100,
  });
  const script = await findTrackingScript(one.db, made.tracking_script_id ?? '');
  if (!script) throw new Error('the new workspace has no tracking script');
  return script;
}

/** A request through the real pipeline (its compiled filters and resolvers), as its record. */
async function recorded(body: ReturnType<typeof visit>): Promise<IngestRecord> {
  const script = await workspace();
  const collected = parseCollectBody({ ...body, tracking_script_id: script.id }, new Date());
  const context: IngestContext = {
    script,
    visitorId: collected.visitorId,
    ip: CLIENT_IP,
    userAgent: CHROME_UA,
    gpc: false,
    events: collected.events,
  };
  await runPipeline(ingestSteps(geo, [identityResolver(identities)]), context, ingestMetrics());
  return recordOf(context);
}

const throughJson = (record: IngestRecord): IngestRecord => JSON.parse(JSON.stringify(record));

describe('the ingest record', () => {
  it('survives JSON unchanged, carries no client address, and the worker stores the copy', async () => {
    const at = Date.now() - 60_000;
    const record = await recorded(
      visit('', [
        pageview('https://shop.example/', at, 'https://www.google.com/'),
        identify('https://shop.example/', 'ana@acme-widgets.com', at + 1_000, { plan: 'pro' }),
        // A page of another site: dropped by the script's compiled hostname filter.
        pageview('https://elsewhere.example/', at + 2_000),
      ]),
    );
    expect(record.events).toHaveLength(2);
    expect(record.organisation).toMatchObject({
      domain: 'acme-widgets.com',
      source: 'identity',
      email: 'ana@acme-widgets.com',
    });
    expect(record.location.city).toBe('London');
    expect(JSON.stringify(record)).not.toContain(CLIENT_IP);

    const copy = throughJson(record);
    expect(copy).toStrictEqual(record);
    expect(await sink.add([copy])).toEqual([{ stored: 2 }]);
    // Acknowledged: in the inbox, as JSON; a worker makes the visit of it.
    expect(await worker.drainOnce()).toBe(1);
    expect(await worker.drainOnce()).toBe(0);

    const workspaceId = record.script.workspaceId;
    const events = await one.db
      .selectFrom('events')
      .select(['type', 'ts'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('ts')
      .execute();
    expect(events).toEqual([
      { type: 'pageview', ts: new Date(at) },
      { type: 'identify', ts: new Date(at + 1_000) },
    ]);
    const session = await one.db
      .selectFrom('sessions as s')
      .innerJoin('organisations as o', (join) =>
        join.onRef('o.workspace_id', '=', 's.workspace_id').onRef('o.id', '=', 's.organisation_id'),
      )
      .select(['s.browser', 's.city', 's.source', 'o.domain'])
      .where('s.workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    expect(session).toEqual({
      browser: 'Chrome',
      city: 'London',
      source: 'google.com',
      domain: 'acme-widgets.com',
    });
    const visitor = await one.db
      .selectFrom('visitors')
      .select(['id', 'email'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    expect(visitor).toEqual({ id: record.visitorId, email: 'ana@acme-widgets.com' });
  });

  it('is answered refused, through JSON too, when its script was unlinked meanwhile', async () => {
    const record = await recorded(visit('', [pageview('https://shop.example/', Date.now())]));
    await sql`UPDATE tracking_scripts SET revoked_at = now() WHERE id = ${record.script.id}`.execute(
      one.db,
    );
    expect(await sink.add([throughJson(record)])).toEqual([{ refused: 'revoked' }]);
    const stored = await one.db
      .selectFrom('events')
      .select('id')
      .where('workspace_id', '=', record.script.workspaceId)
      .execute();
    expect(stored).toEqual([]);
  });
});
