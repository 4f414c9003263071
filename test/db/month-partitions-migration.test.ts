import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { databaseOfItsOwn } from '../helpers/app.js';
import { workspaceWithOrganisation } from '../helpers/migration-rows.js';

// 0034 moves the events and sessions of a running service into month partitions: this fills
// them on the schema before it (with the rollups their triggers keep), migrates, and checks
// that every row, every rollup and every trigger is as it was, each row in its month.

const db = databaseOfItsOwn();

const ROLLUPS = [
  'stats_organisation_sources',
  'stats_organisation_days',
  'stats_source_days',
  'stats_page_days',
  'stats_visitor_days',
  'stats_visitor_counts',
  'organisation_figures',
  'organisation_locations',
];

/** Every row of the tables, as JSON, in one order. */
async function contents(tables: string[]): Promise<Record<string, string[]>> {
  const result: Record<string, string[]> = {};
  for (const table of tables) {
    // Less the columns later migrations add, NULL for rows stored before them (0041's pages).
    const { rows } = await sql<{ row: string }>`
      SELECT (to_jsonb(t) - 'pages')::text AS row FROM ${sql.table(table)} t ORDER BY 1`.execute(
      db().db,
    );
    result[table] = rows.map((r) => r.row);
  }
  return result;
}

it('keeps every event, session and rollup, each row in its month, and the triggers', async () => {
  const k = db().db;
  expect(await migrate(k, '0033_distribution_keys')).toContain('0033_distribution_keys');
  const { workspace, organisation } = await workspaceWithOrganisation(k);
  // Sessions of three months ago, across a month's end last month, this month, and four
  // years ago (older than the partitions made: the default partition keeps it).
  const now = new Date();
  const monthStart = (back: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1);
  const sessions = [
    { start: monthStart(3) + 86_400_000, minutes: 20 },
    { start: monthStart(1) - 10 * 60_000, minutes: 25 },
    { start: monthStart(0) + 3_600_000, minutes: 5 },
    { start: monthStart(48) + 86_400_000, minutes: 5 },
  ].map(({ start, minutes }) => ({
    id: randomUUID(),
    visitor: randomUUID(),
    started: new Date(start),
    ended: new Date(start + minutes * 60_000),
  }));
  for (const s of sessions) {
    await sql`
      INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
        pageviews, ended_notified, city, country)
      VALUES (${workspace}, ${s.id}, ${s.visitor}, ${organisation}, ${s.started.toISOString()},
        ${s.ended.toISOString()}, 2, true, 'Berlin', 'DE')`.execute(k);
    await sql`
      INSERT INTO events (workspace_id, session_id, type, ts, url, attributed)
      VALUES (${workspace}, ${s.id}, 'pageview', ${s.started.toISOString()}, 'https://one.example/a', true),
        (${workspace}, ${s.id}, 'pageview', ${s.ended.toISOString()}, 'https://one.example/b', true)`.execute(
      k,
    );
  }
  const before = await contents(['sessions', 'events', ...ROLLUPS]);
  expect(before.stats_page_days?.length).toBeGreaterThan(0);
  expect(before.organisation_figures?.length).toBe(1);

  // Up to the migration before 0050, which moves the places into the figures by month
  // (test/db/place-months-migration.test.ts).
  expect(await migrate(k, '0049_sessions_due_to_end')).toContain('0034_month_partitions');

  expect(await contents(['sessions', 'events', ...ROLLUPS])).toEqual(before);
  const month = (at: Date) =>
    `${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
  const { rows: placed } = await sql<{ id: string; partition: string }>`
    SELECT id, tableoid::regclass::text AS partition FROM sessions`.execute(k);
  const where = Object.fromEntries(placed.map((row) => [row.id, row.partition]));
  expect(sessions.map((s) => where[s.id])).toEqual([
    `sessions_${month(sessions[0]?.started as Date)}`,
    `sessions_${month(sessions[1]?.started as Date)}`,
    `sessions_${month(sessions[2]?.started as Date)}`,
    'sessions_default',
  ]);
  // The session across a month's end: its events on both sides.
  const { rows: across } = await sql<{ partition: string }>`
    SELECT tableoid::regclass::text AS partition FROM events
    WHERE session_id = ${sessions[1]?.id as string} ORDER BY ts`.execute(k);
  expect(across.map((row) => row.partition)).toEqual([
    `events_${month(sessions[1]?.started as Date)}`,
    `events_${month(sessions[1]?.ended as Date)}`,
  ]);
  // Two months ahead are made already.
  const ahead = new Date(monthStart(-2));
  const { rows: made } = await sql<{ found: boolean }>`
    SELECT to_regclass(${`sessions_${month(ahead)}`}) IS NOT NULL
      AND to_regclass(${`events_${month(ahead)}`}) IS NOT NULL AS found`.execute(k);
  expect(made[0]?.found).toBe(true);

  // Event ids go on after the moved ones, and the triggers count what comes next.
  const { rows: ids } = await sql<{ id: string; max: string }>`
    WITH added AS (
      INSERT INTO events (workspace_id, session_id, type, ts, url, attributed)
      VALUES (${workspace}, ${sessions[2]?.id as string}, 'pageview',
        ${new Date(monthStart(0) + 3_700_000).toISOString()}, 'https://one.example/c', true)
      RETURNING id)
    SELECT (SELECT id FROM added)::text AS id, (SELECT max(id) FROM events)::text AS max`.execute(
    k,
  );
  expect(BigInt(ids[0]?.id ?? 0)).toBeGreaterThan(8n);
  const { rows: pages } = await sql<{ pageviews: number }>`
    SELECT pageviews FROM stats_page_days
    WHERE workspace_id = ${workspace} AND url = 'https://one.example/c'`.execute(k);
  expect(pages).toEqual([{ pageviews: 1 }]);
  await sql`DELETE FROM sessions WHERE id = ${sessions[0]?.id as string}`.execute(k);
  const { rows: figures } = await sql<{ sessions: number }>`
    SELECT sessions FROM organisation_figures WHERE organisation_id = ${organisation}`.execute(k);
  expect(figures).toEqual([{ sessions: 3 }]);
});
