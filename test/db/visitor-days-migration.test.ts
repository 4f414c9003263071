import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { detachMonth, monthsBefore, PARTITIONED } from '../../src/db/partitions.js';
import { deleteExpired } from '../../src/privacy/retention.js';
import { databaseOfItsOwn } from '../helpers/app.js';
import { workspaceWithOrganisation } from '../helpers/migration-rows.js';
import { expectRollupsRecounted } from '../helpers/rollup-recount.js';

// 0046 partitions the visitors' days by month, and retention then moves a month's visitor
// counts when it detaches the month. A retention run stopped after detaching a month, before
// the upgrade, left that month's days in the table, which has no partition of it: the next
// run takes them out of the table and the counts, as it did before. The rollups are checked
// against a recount from the sessions that stay.

const db = databaseOfItsOwn();
const DAY = 86_400_000;

it('retires a month detached before the visitor days were partitioned', async () => {
  const k = db().db;
  expect(await migrate(k, '0045_session_micros_in_floats')).toContain(
    '0045_session_micros_in_floats',
  );
  const { workspace, organisation } = await workspaceWithOrganisation(k);
  const now = new Date();
  const monthStart = (back: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1);
  const first = new Date(monthStart(2)).toISOString().slice(0, 10);
  await sql`
    SELECT create_month_partitions(t, ${first}::date, (now() AT TIME ZONE 'UTC')::date)
    FROM unnest(${PARTITIONED}::text[]) t
    WHERE EXISTS (SELECT 1 FROM pg_partitioned_table p WHERE p.partrelid = to_regclass(t))`.execute(
    k,
  );
  const [back, comes, once, across] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const visit = async (visitor: string, start: number, minutes: number, named = true) => {
    const id = randomUUID();
    await sql`
      INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
        pageviews, ended_notified, source)
      VALUES (${workspace}, ${id}, ${visitor}, ${named ? organisation : null},
        ${new Date(start).toISOString()}, ${new Date(start + minutes * 60_000).toISOString()},
        1, true, 'google.com')`.execute(k);
    await sql`
      INSERT INTO events (workspace_id, session_id, type, ts, url, attributed)
      VALUES (${workspace}, ${id}, 'pageview', ${new Date(start).toISOString()},
        'https://one.example/a', ${named})`.execute(k);
  };
  // Two months ago: a visitor who comes back last month (after the limit), one who comes
  // back within the limit, one who never does, and one whose visit crosses into last month.
  await visit(back, monthStart(2) + 2 * DAY, 10);
  await visit(comes, monthStart(2) + 3 * DAY, 10, false);
  await visit(once, monthStart(2) + 4 * DAY, 10);
  await visit(across, monthStart(1) - 30 * 60_000, 60);
  await visit(back, monthStart(1) + 20 * DAY, 10);
  await visit(comes, monthStart(1) + 5 * DAY, 10);
  await visit(back, monthStart(0), 10, false);

  // Last month's tenth day is the limit: the month two months ago can go whole.
  const cutoff = new Date(monthStart(1) + 10 * DAY);
  const [month] = await monthsBefore(k, cutoff);
  expect(month?.month).toBe(first);
  // A run of the version before 0046 detaches it and stops.
  expect(await detachMonth(k, month as NonNullable<typeof month>, cutoff)).toBe(true);

  expect(await migrate(k)).toContain('0046_visitor_days_by_month');
  const { rows: home } = await sql<{ found: boolean }>`
    SELECT to_regclass(${month?.partitions.stats_visitor_days}) IS NOT NULL AS found`.execute(k);
  expect(home).toEqual([{ found: false }]);

  const expired = await deleteExpired(k, 1, new Date(cutoff.getTime() + DAY));
  // The month's four sessions whole, and the one within the limit row by row.
  expect(expired.sessions).toBe(5);
  await expectRollupsRecounted(k);
  // What stays is counted: the visitor who came back after the limit, as new then.
  const { rows } = await sql<{ day: string; identified: boolean; previous: string | null }>`
    SELECT day::text, identified, previous_day::text AS previous FROM stats_visitor_counts
    WHERE workspace_id = ${workspace} ORDER BY 1, 2`.execute(k);
  const day = (at: number) => new Date(at).toISOString().slice(0, 10);
  expect(rows).toEqual([
    { day: day(monthStart(1) + 20 * DAY), identified: false, previous: null },
    { day: day(monthStart(1) + 20 * DAY), identified: true, previous: null },
    { day: day(monthStart(0)), identified: false, previous: day(monthStart(1) + 20 * DAY) },
  ]);
});
