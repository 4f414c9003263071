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

// Each rollup beside the same figures counted from the sessions and events (deleted
// workspaces aside: their rows are the purge's).
const LIVE = `workspace_id IN (SELECT id FROM workspaces WHERE deleted_at IS NULL)`;
const sessionDays = `
  SELECT s.workspace_id, s.visitor_id, d::date AS day, count(*)::bigint AS sessions,
    count(s.organisation_id)::bigint AS attributed
  FROM sessions s, generate_series((s.started_at AT TIME ZONE 'UTC')::date,
    (s.ended_at AT TIME ZONE 'UTC')::date, interval '1 day') d
  WHERE s.${LIVE} GROUP BY 1, 2, 3`;
const ended = `FROM sessions WHERE ended_notified AND organisation_id IS NOT NULL AND ${LIVE}`;
const ROLLUPS: Record<string, { kept: string; counted: string }> = {
  // The organisation figures count ended sessions (organisation-figures.ts).
  organisation_figures: {
    kept: `SELECT workspace_id, organisation_id, sessions::bigint, pageviews::bigint, micros::bigint,
        first_seen, last_seen
      FROM organisation_figures WHERE ${LIVE}`,
    counted: `SELECT workspace_id, organisation_id, count(*)::bigint, sum(pageviews)::bigint,
        sum(session_micros(started_at, ended_at))::bigint, min(started_at), max(ended_at)
      ${ended} GROUP BY 1, 2`,
  },
  organisation_locations: {
    kept: `SELECT workspace_id, organisation_id, city, country, sessions::bigint
      FROM organisation_locations WHERE ${LIVE}`,
    counted: `SELECT workspace_id, organisation_id, city, country, count(*)::bigint
      ${ended} AND city <> '' GROUP BY 1, 2, 3, 4`,
  },
  stats_organisation_sources: {
    kept: `SELECT workspace_id, organisation_id, day, source, sessions::bigint, pageviews::bigint
      FROM stats_organisation_sources WHERE ${LIVE}`,
    counted: `SELECT workspace_id, organisation_id, (started_at AT TIME ZONE 'UTC')::date, source,
        count(*)::bigint, sum(pageviews)::bigint
      FROM sessions WHERE organisation_id IS NOT NULL AND ${LIVE} GROUP BY 1, 2, 3, 4`,
  },
  stats_organisation_days: {
    kept: `SELECT workspace_id, day, organisation_id, sessions::bigint, pageviews::bigint
      FROM stats_organisation_days WHERE ${LIVE}`,
    counted: `SELECT workspace_id, (started_at AT TIME ZONE 'UTC')::date, organisation_id,
        count(*)::bigint, sum(pageviews)::bigint
      FROM sessions WHERE organisation_id IS NOT NULL AND ${LIVE} GROUP BY 1, 2, 3`,
  },
  stats_source_days: {
    kept: `SELECT workspace_id, day, source, sessions::bigint FROM stats_source_days WHERE ${LIVE}`,
    counted: `SELECT workspace_id, (started_at AT TIME ZONE 'UTC')::date, source, count(*)::bigint
      FROM sessions WHERE organisation_id IS NOT NULL AND ${LIVE} GROUP BY 1, 2, 3`,
  },
  stats_page_days: {
    kept: `SELECT workspace_id, day, url, pageviews::bigint, attributed_pageviews::bigint
      FROM stats_page_days WHERE ${LIVE}`,
    // Attributed: the view's session has an organisation (whatever the event's own flag says).
    counted: `SELECT e.workspace_id, (e.ts AT TIME ZONE 'UTC')::date, e.url, count(*)::bigint,
        count(s.organisation_id)::bigint
      FROM events e LEFT JOIN sessions s ON s.workspace_id = e.workspace_id AND s.id = e.session_id
      WHERE e.type = 'pageview' AND e.${LIVE} GROUP BY 1, 2, 3`,
  },
  // The month and workspace-day rollups of the daily ones (migration 0039), recounted from
  // the sessions and events as the daily ones are.
  stats_workspace_days: {
    kept: `SELECT workspace_id, day, sessions::bigint, pageviews::bigint, organisations::bigint
      FROM stats_workspace_days WHERE ${LIVE}`,
    counted: `SELECT workspace_id, (started_at AT TIME ZONE 'UTC')::date, count(*)::bigint,
        sum(pageviews)::bigint, count(DISTINCT organisation_id)::bigint
      FROM sessions WHERE organisation_id IS NOT NULL AND ${LIVE} GROUP BY 1, 2`,
  },
  stats_organisation_months: {
    kept: `SELECT workspace_id, month, organisation_id, sessions::bigint, pageviews::bigint,
        days::bigint
      FROM stats_organisation_months WHERE ${LIVE}`,
    counted: `SELECT workspace_id, date_trunc('month', started_at AT TIME ZONE 'UTC')::date,
        organisation_id, count(*)::bigint, sum(pageviews)::bigint,
        count(DISTINCT (started_at AT TIME ZONE 'UTC')::date)::bigint
      FROM sessions WHERE organisation_id IS NOT NULL AND ${LIVE} GROUP BY 1, 2, 3`,
  },
  stats_page_months: {
    kept: `SELECT workspace_id, month, url, pageviews::bigint, attributed_pageviews::bigint,
        days::bigint
      FROM stats_page_months WHERE ${LIVE}`,
    counted: `SELECT e.workspace_id, date_trunc('month', e.ts AT TIME ZONE 'UTC')::date, e.url,
        count(*)::bigint, count(s.organisation_id)::bigint,
        count(DISTINCT (e.ts AT TIME ZONE 'UTC')::date)::bigint
      FROM events e LEFT JOIN sessions s ON s.workspace_id = e.workspace_id AND s.id = e.session_id
      WHERE e.type = 'pageview' AND e.${LIVE} GROUP BY 1, 2, 3`,
  },
  stats_visitor_days: {
    kept: `SELECT workspace_id, visitor_id, day, sessions::bigint, attributed_sessions::bigint
      FROM stats_visitor_days WHERE ${LIVE}`,
    counted: sessionDays,
  },
  stats_visitor_counts: {
    kept: `SELECT workspace_id, day, identified, previous_day, visitors::bigint
      FROM stats_visitor_counts WHERE ${LIVE}`,
    counted: `WITH d AS (${sessionDays})
      SELECT workspace_id, day, identified, previous_day, count(*)::bigint
      FROM (SELECT workspace_id, day, false AS identified,
              lag(day) OVER (PARTITION BY workspace_id, visitor_id ORDER BY day) AS previous_day
            FROM d
            UNION ALL
            SELECT workspace_id, day, true,
              lag(day) OVER (PARTITION BY workspace_id, visitor_id ORDER BY day)
            FROM d WHERE attributed > 0) c
      GROUP BY 1, 2, 3, 4`,
  },
};

/** Fails with the rows that differ, table by table, unless every rollup is its recount. */
async function expectRollupsRecounted(): Promise<void> {
  for (const [table, { kept, counted }] of Object.entries(ROLLUPS)) {
    const { rows } = await sql<{ side: string; row: unknown }>`
      SELECT 'kept, not counted' AS side, to_jsonb(k) AS row
      FROM ((${sql.raw(kept)}) EXCEPT ALL (${sql.raw(counted)})) k
      UNION ALL
      SELECT 'counted, not kept', to_jsonb(c)
      FROM ((${sql.raw(counted)}) EXCEPT ALL (${sql.raw(kept)})) c`.execute(db);
    expect({ table, rows }).toEqual({ table, rows: [] });
  }
  // And every view carries its session's attribution, which the page rollup counts by.
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM events e
    LEFT JOIN sessions s ON s.workspace_id = e.workspace_id AND s.id = e.session_id
    WHERE e.attributed IS DISTINCT FROM (s.organisation_id IS NOT NULL)`.execute(db);
  expect(rows[0]?.n).toBe(0);
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
      await expectRollupsRecounted();
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
      await expectRollupsRecounted();
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
    await expectRollupsRecounted();
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
