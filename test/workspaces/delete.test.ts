import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';
import { operatorWith, startWebhookApp } from '../helpers/webhooks.js';

const BULK = 100_000;
let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  t = await startWebhookApp({ INGEST_TALLY_MS: '50' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

/** Rows naming the workspace, table by table, for every table with a workspace_id column. */
async function rowsOf(workspaceId: string): Promise<Record<string, number>> {
  const { rows } = await sql<{ table: string }>`
    SELECT table_name AS table FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name = 'workspace_id'
    ORDER BY table_name`.execute(t.database.db);
  const counts: Record<string, number> = {};
  for (const { table } of rows) {
    const counted = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE workspace_id = ${workspaceId}`.execute(
      t.database.db,
    );
    counts[table] = counted.rows[0]?.n ?? 0;
  }
  const workspace = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM workspaces WHERE id = ${workspaceId}`.execute(t.database.db);
  counts.workspaces = workspace.rows[0]?.n ?? 0;
  return counts;
}

describe('DELETE /v1/workspaces/{uuid}', () => {
  it(`answers at once for a workspace with ${BULK.toLocaleString('en')} sessions; then nothing of it is left anywhere`, async () => {
    const doomed = await operatorWith(t, receiver.url, 'event');
    const kept = await operatorWith(t, receiver.url, 'event');
    const ws = doomed.workspace.uuid as string;
    const script = doomed.workspace.tracking_script_id as string;
    const site = 'https://site.example';
    const now = Date.now();
    // Real traffic through the collector: an organisation, a contact, deliveries.
    for (const send of [doomed.send, kept.send]) {
      expect(
        (await send([pageview(`${site}/`, now - 5000), identify(`${site}/`, 'jo@acme.com', now)]))
          .status,
      ).toBe(202);
    }
    const org = (await doomed.api('GET', `/v1/workspaces/${ws}/organisations`)).body.data[0].uuid;
    await doomed.api('POST', `/v1/workspaces/${ws}/organisations/${org}/tags`, { tag_name: 'hot' });
    await doomed.api('POST', `/v1/workspaces/${ws}/custom-fields`, {
      key: 'tier',
      name: 'Tier',
      type: 'text',
    });
    await doomed.api('PUT', `/v1/workspaces/${ws}/organisations/${org}/custom-fields/tier`, {
      value: 'gold',
    });
    await doomed.api('POST', `/v1/workspaces/${ws}/segments`, {
      name: 'Everyone',
      filters: {
        operator: 'AND',
        conditions: [{ field: 'sessions', comparison: 'greater_than', value: 0 }],
      },
    });
    await doomed.api('POST', `/v1/workspaces/${ws}/users/invite`, { email: 'new@acme.com' });
    // The bulk: sessions of that organisation with a page view each, as ingest stores them.
    await sql`
      INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
        referrer, country, state, city, latitude, longitude, browser, device_type, pageviews,
        ended_notified, source)
      SELECT ${ws}, gen_random_uuid(), gen_random_uuid(), ${org},
        now() - make_interval(mins => i), now() - make_interval(mins => i), '', 'DE', '',
        'Berlin', 0, 0, 'Chrome', 'desktop', 1, true, 'direct'
      FROM generate_series(1, ${BULK}) i`.execute(t.database.db);
    await sql`
      INSERT INTO events (workspace_id, session_id, type, ts, url, data)
      SELECT workspace_id, id, 'pageview', started_at, ${`${site}/pricing`}, '{}'
      FROM sessions WHERE workspace_id = ${ws}`.execute(t.database.db);
    const before = await rowsOf(ws);
    expect(before.sessions).toBeGreaterThan(BULK);
    expect(before.events).toBeGreaterThan(BULK);
    // Each server writes its counts of events received every few seconds: wait for them.
    await until(async () => (await rowsOf(kept.workspace.uuid)).workspace_ingest_hours === 1);
    const keptBefore = await rowsOf(kept.workspace.uuid);

    const started = performance.now();
    const deleted = await doomed.api('DELETE', `/v1/workspaces/${ws}`);
    const took = performance.now() - started;
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(took).toBeLessThan(1000);

    // Gone from every answer at once.
    expect((await doomed.api('GET', `/v1/workspaces/${ws}`)).status).toBe(404);
    expect((await doomed.api('GET', '/v1/workspaces')).body.data).toEqual([]);
    expect((await doomed.api('GET', `/v1/workspaces/${ws}/organisations/${org}`)).status).toBe(404);
    expect((await doomed.api('GET', `/v1/workspaces/${ws}/segments`)).status).toBe(404);
    expect((await doomed.api('DELETE', `/v1/workspaces/${ws}`)).status).toBe(404);
    const log = (await doomed.api('GET', '/radar/operator/v1/webhooks/deliveries')).body;
    expect(log.total).toBe(0);
    // Its script: refused by the collector and no longer served (caches hold it ≤ 2 s).
    await until(async () => {
      const sent = await collector(t.url)(visit(script, [pageview(`${site}/`, Date.now())]));
      return sent.status === 404;
    }, 5_000);
    expect((await fetch(`${t.url}/t/${script}.js`)).status).toBe(404);

    // Purged in the background: nothing left in any table.
    await until(async () => Object.values(await rowsOf(ws)).every((n) => n === 0), 90_000);
    // The other workspace lost nothing, and still works.
    expect(await rowsOf(kept.workspace.uuid)).toEqual(keptBefore);
    expect((await kept.send([pageview(`${site}/`, Date.now())])).status).toBe(202);
  }, 150_000);

  it('answers 204 when a job holds its rows the other way round: the delete is done again after the deadlock', async () => {
    const owner = await operatorWith(t, receiver.url);
    const ws = owner.workspace.uuid as string;
    expect((await owner.send([pageview('https://site.example/', Date.now())])).status).toBe(202);
    let org = '';
    await until(async () => {
      org = (await owner.api('GET', `/v1/workspaces/${ws}/organisations`)).body.data[0]?.uuid;
      return org !== undefined;
    }, 10_000);
    const owned = await owner.api('PATCH', `/v1/workspaces/${ws}/organisations/${org}`, {
      owner_uuid: owner.id,
    });
    expect(owned.status).toBe(200);
    // A job's transaction holds the organisation's row, then checks its owner's membership.
    // The delete, meanwhile, has taken the membership and waits for the row (its members
    // go, and with them the organisation's owner: ON DELETE SET NULL).
    let locked!: () => void;
    let go!: () => void;
    const holding = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const goOn = new Promise<void>((resolve) => {
      go = resolve;
    });
    const job = t.database.db.transaction().execute(async (trx) => {
      // The delete looks for a cycle after 1 s of waiting, the job after 10 s: the delete is
      // the one PostgreSQL breaks, unless a slow machine made it look before the job waited.
      await sql`SET LOCAL deadlock_timeout = '10s'`.execute(trx);
      await sql`UPDATE organisations SET status = status
        WHERE workspace_id = ${ws} AND id = ${org}`.execute(trx);
      locked();
      await goOn;
      await sql`SELECT 1 FROM workspace_members WHERE workspace_id = ${ws}
        AND user_id = ${owner.id} FOR KEY SHARE`.execute(trx);
    });
    await holding;
    const deleted = owner.api('DELETE', `/v1/workspaces/${ws}`);
    // The delete waits for the row; the job then waits for the delete.
    await until(async () => {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'
          AND query ILIKE 'delete from "workspace_members"%'`.execute(t.database.db);
      return rows[0]?.n === 1;
    }, 10_000);
    go();
    await job.catch((error) => expect(error.code).toBe('40P01'));
    expect((await deleted).status).toBe(204);
    expect((await owner.api('GET', `/v1/workspaces/${ws}`)).status).toBe(404);
  });

  it('is for owners only', async () => {
    const owner = await operatorWith(t, receiver.url);
    const ws = owner.workspace.uuid as string;
    const other = await operatorWith(t, receiver.url);
    expect((await other.api('DELETE', `/v1/workspaces/${ws}`)).status).toBe(404);
    expect((await owner.api('GET', `/v1/workspaces/${ws}`)).status).toBe(200);
  });
});
