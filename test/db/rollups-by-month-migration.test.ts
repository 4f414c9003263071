import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { PARTITIONED } from '../../src/db/partitions.js';
import { databaseOfItsOwn } from '../helpers/app.js';
import { workspaceWithOrganisation } from '../helpers/migration-rows.js';

// 0044 moves the stats rollups kept by day or month into month partitions, and 0046 the
// visitors' days: this fills them on the schema before both, migrates, and checks that every
// row is as it was, each in its month, and that the triggers and the writer's functions go on
// keeping them.

const db = databaseOfItsOwn();

// The rollups 0044 and 0046 partition: every partitioned table but sessions and events.
const ROLLUPS = PARTITIONED.filter((table) => table.startsWith('stats_'));

/** Every row of the tables, as JSON, in one order. */
async function contents(): Promise<Record<string, string[]>> {
  const result: Record<string, string[]> = {};
  for (const table of ROLLUPS) {
    const { rows } = await sql<{ row: string }>`
      SELECT to_jsonb(t)::text AS row FROM ${sql.table(table)} t ORDER BY 1`.execute(db().db);
    result[table] = rows.map((r) => r.row);
  }
  return result;
}

it('keeps every rollup row, each in its month, and the triggers and writers that keep them', async () => {
  const k = db().db;
  expect(await migrate(k, '0043_first_seen_from_its_month')).toContain(
    '0043_first_seen_from_its_month',
  );
  const { workspace, organisation } = await workspaceWithOrganisation(k);
  // Sessions of two months ago, last month, this month, and four years ago (older than the
  // partitions: the default partitions keep its rows).
  const now = new Date();
  const monthStart = (back: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1);
  const starts = [monthStart(2) + 86_400_000, monthStart(1) + 3_600_000, monthStart(0) + 60_000];
  // The sessions' months, as the partitions job made them at the time: the rollups get the
  // same ones.
  const first = new Date(monthStart(2)).toISOString().slice(0, 10);
  await sql`SELECT create_month_partitions(t, ${first}::date, (now() AT TIME ZONE 'UTC')::date)
    FROM unnest(ARRAY['sessions', 'events']) t`.execute(k);
  const sessions = [...starts, monthStart(48) + 86_400_000].map((start) => ({
    id: randomUUID(),
    started: new Date(start),
    ended: new Date(start + 10 * 60_000),
  }));
  // This month's also from other sources: its partitions hold rows at places where last
  // month's hold none, which a delete by place alone would take too.
  const others = ['a.example', 'b.example', 'c.example', 'd.example'].map((source) => ({
    source,
    id: randomUUID(),
    started: new Date(starts[2] as number),
    ended: new Date((starts[2] as number) + 60_000),
  }));
  for (const s of [...sessions.map((s) => ({ ...s, source: 'google.com' })), ...others]) {
    await sql`
      INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
        pageviews, ended_notified, source)
      VALUES (${workspace}, ${s.id}, ${randomUUID()}, ${organisation}, ${s.started.toISOString()},
        ${s.ended.toISOString()}, 2, true, ${s.source})`.execute(k);
    await sql`
      INSERT INTO events (workspace_id, session_id, type, ts, url, attributed)
      VALUES (${workspace}, ${s.id}, 'pageview', ${s.started.toISOString()}, 'https://one.example/a', true),
        (${workspace}, ${s.id}, 'pageview', ${s.ended.toISOString()}, 'https://one.example/b', true)`.execute(
      k,
    );
  }
  const before = await contents();
  for (const table of ROLLUPS) expect(before[table]?.length, table).toBeGreaterThanOrEqual(4);

  expect(await migrate(k)).toEqual(
    expect.arrayContaining(['0044_rollups_by_month', '0046_visitor_days_by_month']),
  );

  expect(await contents()).toEqual(before);
  const suffix = (at: Date) =>
    `${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
  for (const table of ROLLUPS) {
    const key = table.endsWith('_months') ? 'month' : 'day';
    const { rows } = await sql<{ key: string; partition: string }>`
      SELECT ${sql.ref(key)}::text AS key, tableoid::regclass::text AS partition
      FROM ${sql.table(table)} ORDER BY 1`.execute(k);
    const months = new Set(starts.map((start) => suffix(new Date(start))));
    const home = (key: string) => {
      const month = key.slice(0, 7).replace('-', '_');
      return months.has(month) ? `${table}_${month}` : `${table}_default`;
    };
    expect(rows.map((row) => row.partition)).toEqual(rows.map((row) => home(row.key)));
    expect(new Set(rows.map((row) => row.partition)).size).toBe(4);
  }

  // The triggers count what comes next, by day and by month; the writer's functions delete
  // what a statement takes to nothing, in its partition alone.
  const latest = sessions[2] as (typeof sessions)[number];
  await sql`
    INSERT INTO events (workspace_id, session_id, type, ts, url, attributed)
    VALUES (${workspace}, ${latest.id}, 'pageview', ${latest.ended.toISOString()},
      'https://one.example/c', true)`.execute(k);
  const { rows: pages } = await sql<{ days: number; months: number }>`
    SELECT (SELECT sum(pageviews) FROM stats_page_days
            WHERE workspace_id = ${workspace} AND url = 'https://one.example/c')::int AS days,
      (SELECT sum(pageviews) FROM stats_page_months
       WHERE workspace_id = ${workspace} AND url = 'https://one.example/c')::int AS months`.execute(
    k,
  );
  expect(pages).toEqual([{ days: 1, months: 1 }]);
  const kept = await contents();
  await sql`DELETE FROM sessions WHERE id = ${sessions[1]?.id as string}`.execute(k);
  const after = await contents();
  const lastMonth = new Date(starts[1] as number).toISOString().slice(0, 7);
  for (const table of [
    'stats_organisation_sources',
    'stats_organisation_days',
    'stats_visitor_days',
  ]) {
    // Its day's rows went, and only those.
    expect(after[table]).toEqual(
      kept[table]?.filter((row) => !(JSON.parse(row).day as string).startsWith(lastMonth)),
    );
    expect(after[table]?.length).toBeLessThan(kept[table]?.length ?? 0);
  }
});
