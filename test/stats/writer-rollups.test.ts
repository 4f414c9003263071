import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARTITIONED } from '../../src/db/partitions.js';
import type { Database } from '../../src/db/schema.js';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { attributeLate } from '../../src/ingest/attribute-late.js';
import { visitorLocks } from '../../src/ingest/store.js';
import { mendNetworkOrganisations } from '../../src/organisations/mend.js';
import { forgetPerson } from '../../src/privacy/forget.js';
import { deleteExpired } from '../../src/privacy/retention.js';
import { deleteWorkspace, purgeDeletedWorkspace } from '../../src/workspaces/purge.js';
import { type Answer, client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, processed, visit } from '../helpers/collect.js';
import { expectRollupsRecounted, ROLLUPS } from '../helpers/rollup-recount.js';
import { seeded } from '../helpers/seeded.js';
import { until } from '../helpers/wait.js';

// The ingest workers add the stats rollups of a batch once, at its commit (src/stats/rollups.ts);
// every other path that changes sessions or events still adds them through the triggers. Here
// random batches (visitors of known networks and unknown ones, identifications that take
// earlier sessions along, sessions across midnight, late events, sources) go through the real
// workers, with the other paths run between and beside them, and every rollup row is checked
// against a count from the sessions and events themselves.

const NETWORKS = [
  { network: '81.2.69.0/24', ip: '81.2.69.160', domain: 'acme.com', name: 'Acme' },
  { network: '1.1.1.0/24', ip: '1.1.1.1', domain: 'hooli.com', name: 'Hooli' },
  // A network owner's organisation, which the mend command may take back.
  { network: '8.8.8.0/24', ip: '8.8.8.8', domain: 'as15169', name: 'Google' },
] as const;
const UNKNOWN_IPS = ['203.0.113.9', '198.51.100.7'];
const EMAIL_DOMAINS = ['initech.com', 'umbrella-corp.com', 'gmail.com'];
const PATHS = ['', 'pricing', 'docs', 'blog', 'jobs?utm_source=newsletter'];
const REFERRERS = ['', '', 'https://www.google.com/search', 'https://news.example/item'];
// Three days before a month's end: visits fall on both sides of the boundary, in two month
// partitions (migration 0034), and retention drops the first month whole.
const DAY0 = Date.parse('2026-02-25T00:00:00Z');
const MINUTE = 60_000;

let t: TestApp;
let db: Kysely<Database>;
let workspaces: { id: string; script: string; site: string }[];
/** Workspaces deleted by the test: their visitors send nothing more. */
const gone = new Set<string>();
const { next, pick } = seeded(30);

interface Visitor {
  workspace: { id: string; script: string; site: string };
  id: string;
  ip: string;
  clock: number;
}
let visitors: Visitor[] = [];

beforeAll(async () => {
  t = await startTestApp({
    TRUST_PROXY: '127.0.0.1',
    COLLECT_RATE_LIMIT_PER_IP: '100000',
    COLLECT_RATE_LIMIT_PER_SCRIPT: '100000',
  });
  db = t.database.db;
  // The months of the visits, as the partitions job makes them for the current month: a
  // rollup's rows are spread over partitions, where a place in a table names one in each.
  for (const table of PARTITIONED) {
    await sql`SELECT create_month_partitions(${table}, '2026-02-01', '2026-03-01')`.execute(db);
  }
  await upsertIpRanges(
    db,
    NETWORKS.map(({ network, domain, name }) => ({ network, domain, name })),
  );
  const api = client(t.url, (await t.operator()).token);
  workspaces = [];
  for (const site of ['https://site.example', 'https://other.example']) {
    const made = (await api('POST', '/v1/workspaces', { url: site })).body.data;
    workspaces.push({ id: made.uuid, script: made.tracking_script_id, site });
  }
  visitors = workspaces.flatMap((workspace) =>
    Array.from({ length: 30 }, () => ({
      workspace,
      id: randomUUID(),
      ip: pick([...NETWORKS.map((n) => n.ip), ...UNKNOWN_IPS]),
      clock: DAY0 + Math.floor(next() * 3 * 1440) * MINUTE,
    })),
  );
});
afterAll(() => t.close());

/** A request of a visitor: a few events at their clock, some after a pause or late. */
function request(visitor: Visitor) {
  const { site } = visitor.workspace;
  const events: Record<string, unknown>[] = [];
  const count = 1 + Math.floor(next() * 4);
  for (let i = 0; i < count; i++) {
    const roll = next();
    // Mostly a minute or few on; sometimes a pause that ends the session, or to past midnight.
    visitor.clock +=
      roll < 0.1
        ? 45 * MINUTE
        : roll < 0.15
          ? 8 * 60 * MINUTE
          : (1 + Math.floor(next() * 5)) * MINUTE;
    // Now and then an event that arrives late, from before the visitor's last one.
    const ts = next() < 0.08 ? visitor.clock - 40 * MINUTE : visitor.clock;
    const url = `${site}/${pick(PATHS)}`;
    const kind = next();
    if (kind < 0.07) {
      events.push({
        type: 'identify',
        ts,
        url,
        email: `p${Math.floor(next() * 5)}@${pick(EMAIL_DOMAINS)}`,
      });
    } else if (kind < 0.15) {
      events.push({ type: 'click', ts, url, href: `${site}/x`, text: 'x' });
    } else {
      events.push(pageview(url, ts, pick(REFERRERS)));
    }
  }
  // A visitor sometimes moves to another network.
  if (next() < 0.05) visitor.ip = pick([...NETWORKS.map((n) => n.ip), ...UNKNOWN_IPS]);
  return { body: visit(visitor.workspace.script, events, { visitor: visitor.id }), ip: visitor.ip };
}

/** `requests` random requests, sent 16 at a time; answers once all are acknowledged. */
async function wave(requests: number): Promise<void> {
  const send = collector(t.url, { wait: false });
  const sending = visitors.filter((v) => !gone.has(v.workspace.id));
  const bodies = Array.from({ length: requests }, () => request(pick(sending)));
  let nextIndex = 0;
  const answers: Answer[] = [];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (nextIndex < bodies.length) {
        const { body, ip } = bodies[nextIndex++] as (typeof bodies)[number];
        answers.push(await send(body, { 'x-forwarded-for': ip }));
      }
    }),
  );
  expect(answers.filter((a) => a.status !== 202)).toEqual([]);
}

const rowsOf = async (table: string, workspaceId?: string) =>
  (
    await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}
      ${workspaceId ? sql`WHERE workspace_id = ${workspaceId}` : sql``}`.execute(db)
  ).rows[0]?.n ?? 0;

describe('the stats rollups of the ingest workers', () => {
  it('equal a recount after many random batches, and after every other path that changes sessions', async () => {
    for (let round = 0; round < 4; round++) {
      await wave(120);
      await processed(t.url, 60_000);
      await expectRollupsRecounted(db);
    }
    // Not a check of empty tables: every rollup holds rows of both workspaces.
    for (const table of Object.keys(ROLLUPS)) {
      for (const workspace of workspaces)
        expect(await rowsOf(table, workspace.id)).toBeGreaterThan(0);
    }

    // Each other path in turn, while the workers process a batch beside it.
    const [first, second] = workspaces as [(typeof workspaces)[0], (typeof workspaces)[0]];
    const beside = async (path: () => Promise<unknown>) => {
      await Promise.all([wave(60), path()]);
      await processed(t.url, 60_000);
      await expectRollupsRecounted(db);
    };
    // Late attribution names the unknown visitors' unnamed sessions.
    await beside(() =>
      attributeLate(
        { db, visitorLocks },
        { domain: 'late-firm.com', name: 'Late Firm' },
        visitors
          .filter((v) => UNKNOWN_IPS.includes(v.ip))
          .map((v) => ({ workspaceId: v.workspace.id, visitorId: v.id })),
      ),
    );
    // The mend command takes back the network owner's organisation.
    await beside(() =>
      mendNetworkOrganisations(db, async () => ({ organisation: false, judged: {} }), {
        dryRun: false,
      }),
    );
    // An organisation deleted: its sessions lose it (the foreign key's SET NULL).
    await beside(() =>
      sql`DELETE FROM organisations WHERE workspace_id = ${first.id} AND domain = 'hooli.com'`.execute(
        db,
      ),
    );
    // A person forgotten, by visitor and by e-mail address.
    const person = visitors.find((v) => v.workspace.id === first.id) as Visitor;
    await beside(() => forgetPerson(db, first.id, { visitorId: person.id }));
    await beside(() => forgetPerson(db, second.id, { email: 'p1@initech.com' }));
    // Retention: what ended before the third day goes, row by row.
    await beside(() => deleteExpired(db, 1, new Date(DAY0 + 3 * 1440 * MINUTE)));
    // Then February whole, as a partition, with the next month's events of its last sessions.
    const partitions = async () =>
      (
        await sql<{ name: string }>`
          SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'sessions'::regclass AND c.relname LIKE 'sessions_2026_0%'
          ORDER BY 1`.execute(db)
      ).rows.map((row) => row.name);
    expect(await partitions()).toEqual(['sessions_2026_02', 'sessions_2026_03']);
    const inFebruary = await rowsOf('sessions_2026_02');
    expect(inFebruary).toBeGreaterThan(0);
    let expired = { sessions: 0, events: 0, deliveries: 0 };
    await beside(async () => {
      expired = await deleteExpired(db, 1, new Date(Date.parse('2026-03-03T00:00:00Z')));
    });
    expect(await partitions()).toEqual(['sessions_2026_03']);
    expect(expired.sessions).toBeGreaterThanOrEqual(inFebruary);
    // A deleted workspace: its rows go with the purge, the other's stay right.
    gone.add(second.id);
    await deleteWorkspace(db, second.id);
    await sql`UPDATE workspaces SET deleted_at = now() - interval '1 hour' WHERE id = ${second.id}`.execute(
      db,
    );
    await beside(() =>
      until(
        async () =>
          (await purgeDeletedWorkspace(db)) === 0 &&
          (await rowsOf('stats_page_days', second.id)) === 0,
      ),
    );
    for (const table of Object.keys(ROLLUPS)) expect(await rowsOf(table, second.id)).toBe(0);
    await expectRollupsRecounted(db);
  });

  it('takes the rows every batch shares only at its commit', async () => {
    const [workspace] = workspaces as [(typeof workspaces)[0]];
    const send = collector(t.url);
    const url = 'https://site.example/hot-page';
    const at = DAY0 + 20 * 1440 * MINUTE;
    expect((await send(visit(workspace.script, [pageview(url, at)]))).status).toBe(202);
    // Another transaction holds the page's rollup row, as another batch at its commit would.
    const other = new pg.Client({ connectionString: t.deps.config.databaseUrl ?? '' });
    await other.connect();
    try {
      await other.query('BEGIN');
      const held = await other.query(
        `SELECT 1 FROM stats_page_days WHERE workspace_id = $1 AND url = $2 FOR UPDATE`,
        [workspace.id, url],
      );
      expect(held.rowCount).toBe(1);
      const answer = await collector(t.url, { wait: false })(
        visit(workspace.script, [pageview(url, at + MINUTE)]),
      );
      expect(answer.status).toBe(202);
      // The batch did all its work (sessions, events) and waits at the commit, whose first
      // statement adds the page views. Read apart from the holding transaction: its view of
      // pg_stat_activity stays as it was when it first looked.
      let waiting: string | undefined;
      await until(async () => {
        const { rows } = await sql<{ query: string }>`
          SELECT query FROM pg_stat_activity WHERE datname = current_database()
            AND state = 'active' AND wait_event_type = 'Lock'`.execute(db);
        waiting = rows[0]?.query;
        return waiting !== undefined;
      });
      expect(waiting).toMatch(/^SELECT stats_apply_pages\(/);
    } finally {
      await other.query('COMMIT');
      await other.end();
    }
    await processed(t.url);
    const { rows } = await sql<{ pageviews: number }>`
      SELECT pageviews FROM stats_page_days WHERE workspace_id = ${workspace.id} AND url = ${url}`.execute(
      db,
    );
    expect(rows).toEqual([{ pageviews: 2 }]);
  });
});
