import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { databaseOfItsOwn } from '../helpers/app.js';
import { workspaceWithOrganisation } from '../helpers/migration-rows.js';
import { expectRollupsRecounted } from '../helpers/rollup-recount.js';

// 0050 keeps the organisation figures and places by the month their sessions started in
// too. This fills sessions on the schema before it (ended or not, attributed or not, in
// months with a partition and years before any), migrates, and checks the new table against
// a recount of the sessions, each row in its month's partition; then that the figures'
// function keeps it as sessions end, change and go.

const db = databaseOfItsOwn();

it('counts the ended sessions of each month and place, and keeps them counted', async () => {
  const k = db().db;
  expect(await migrate(k, '0049_sessions_due_to_end')).toContain('0049_sessions_due_to_end');
  const { workspace, organisation } = await workspaceWithOrganisation(k);
  const now = new Date();
  const monthStart = (back: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1);
  const first = new Date(monthStart(2)).toISOString().slice(0, 10);
  await sql`SELECT create_month_partitions(t, ${first}::date, (now() AT TIME ZONE 'UTC')::date)
    FROM unnest(ARRAY['sessions', 'events']) t`.execute(k);
  const visit = async (start: number, place: [string, string], ended = true, named = true) => {
    const id = randomUUID();
    await sql`
      INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
        pageviews, city, country, ended_notified, source)
      VALUES (${workspace}, ${id}, ${randomUUID()}, ${named ? organisation : null},
        ${new Date(start).toISOString()}, ${new Date(start + 25 * 60_000).toISOString()}, 3,
        ${place[0]}, ${place[1]}, ${ended}, 'google.com')`.execute(k);
    return id;
  };
  const berlin: [string, string] = ['Berlin', 'DE'];
  const nowhere: [string, string] = ['', ''];
  const hour = 3_600_000;
  await visit(monthStart(2) + 2 * hour, berlin);
  const latest = await visit(monthStart(2) + 5 * hour, berlin);
  await visit(monthStart(2) + 3 * hour, nowhere);
  await visit(monthStart(1) + 4 * hour, berlin);
  await visit(monthStart(1) + 6 * hour, berlin, false);
  await visit(monthStart(1) + 7 * hour, berlin, true, false);
  await visit(monthStart(48) + 8 * hour, berlin);

  expect(await migrate(k)).toContain('0050_organisation_place_months');
  await expectRollupsRecounted(k);
  const { rows } = await sql<{ month: string; city: string; sessions: number; at: string }>`
    SELECT month::text, city, sessions, tableoid::regclass::text AS at
    FROM organisation_place_months ORDER BY month, city`.execute(k);
  const month = (back: number) => new Date(monthStart(back)).toISOString().slice(0, 10);
  const partition = (back: number) =>
    `organisation_place_months_${month(back).slice(0, 7).replace('-', '_')}`;
  expect(rows).toEqual([
    { month: month(48), city: 'Berlin', sessions: 1, at: 'organisation_place_months_default' },
    { month: month(2), city: '', sessions: 1, at: partition(2) },
    { month: month(2), city: 'Berlin', sessions: 2, at: partition(2) },
    { month: month(1), city: 'Berlin', sessions: 1, at: partition(1) },
  ]);

  // A session ends, one that held the month's last end goes, and one moves to another place.
  await sql`UPDATE sessions SET ended_notified = true WHERE NOT ended_notified`.execute(k);
  await sql`DELETE FROM sessions WHERE id = ${latest}`.execute(k);
  await sql`UPDATE sessions SET city = 'Hamburg' WHERE city = '' AND organisation_id IS NOT NULL`.execute(
    k,
  );
  await expectRollupsRecounted(k);
  const { rows: after } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM organisation_place_months WHERE city = ''`.execute(k);
  expect(after).toEqual([{ n: 0 }]);
});
