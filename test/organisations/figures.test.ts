import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { PARTITIONED } from '../../src/db/partitions.js';
import { findOrganisationPage } from '../../src/organisations/list.js';
import { hms, loadOrganisations } from '../../src/organisations/read.js';
import { deleteExpired } from '../../src/privacy/retention.js';
import { seeded, workspaceDatabase } from '../helpers/seeded.js';

// An organisation's figures are kept for its ended sessions (migration 0026) and those not
// ended yet added when read; here what the API shows is checked against a count of the
// sessions themselves after each of many statements: new sessions (ended or not), sessions
// extended, ended (as the session.ended job marks them), moved to another organisation or
// to none, given another visitor or place, deleted, and an organisation deleted (its
// sessions set to none by the foreign key).
const ws = randomUUID();
const organisations = Array.from({ length: 4 }, () => randomUUID());
const visitors = Array.from({ length: 8 }, () => randomUUID());
const places = [
  ['', ''],
  ['Berlin', 'DE'],
  ['Paris', 'FR'],
  ['Lyon', 'FR'],
] as const;

const database = workspaceDatabase(ws, organisations);

const { next, pick } = seeded(7);
const someIds = async (count: number) => {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM sessions WHERE workspace_id = ${ws}
    ORDER BY md5(id::text || ${String(next())}) LIMIT ${count}`.execute(database().db);
  return rows.map((row) => row.id);
};

/** One statement of many rows, of a kind drawn at random. */
async function change(step: number): Promise<string> {
  const { db } = database();
  const kind =
    step < 3 ? 'insert' : pick(['insert', 'extend', 'end', 'move', 'visitor', 'place', 'delete']);
  if (kind === 'insert') {
    const rows = Array.from({ length: 1 + Math.floor(next() * 12) }, () => {
      const started = Date.UTC(2026, 1, 1 + Math.floor(next() * 20), Math.floor(next() * 24));
      const [city, country] = pick(places);
      return sql`(${ws}, ${randomUUID()}, ${pick(visitors)}, ${next() < 0.2 ? null : pick(organisations)},
        ${new Date(started).toISOString()}::timestamptz,
        ${new Date(started + Math.floor(next() * 3_600_000)).toISOString()}::timestamptz,
        ${Math.floor(next() * 9)}, ${city}, ${country}, ${next() < 0.5})`;
    });
    await sql`
      INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
        pageviews, city, country, ended_notified)
      VALUES ${sql.join(rows)}`.execute(db);
    return kind;
  }
  const ids = await someIds(1 + Math.floor(next() * 6));
  const which = sql`workspace_id = ${ws} AND id = ANY(${ids}::uuid[])`;
  if (kind === 'extend') {
    // What the collector does most: a later end and more page views, or a later end only.
    await sql`
      UPDATE sessions SET ended_at = ended_at + interval '97.25 seconds',
        pageviews = pageviews + ${next() < 0.5 ? 1 : 0}
      WHERE ${which}`.execute(db);
  } else if (kind === 'end') {
    await sql`UPDATE sessions SET ended_notified = true WHERE ${which}`.execute(db);
  } else if (kind === 'move') {
    await sql`UPDATE sessions SET organisation_id = ${next() < 0.3 ? null : pick(organisations)}
      WHERE ${which}`.execute(db);
  } else if (kind === 'visitor') {
    await sql`UPDATE sessions SET visitor_id = ${pick(visitors)} WHERE ${which}`.execute(db);
  } else if (kind === 'place') {
    const [city, country] = pick(places);
    await sql`UPDATE sessions SET city = ${city}, country = ${country}, pageviews = pageviews + 1
      WHERE ${which}`.execute(db);
  } else {
    await sql`DELETE FROM sessions WHERE ${which}`.execute(db);
  }
  return kind;
}

/** What the API must show, counted from the sessions one by one. */
async function expected() {
  const { rows } = await sql<{
    organisation_id: string;
    visitor_id: string;
    started_at: Date;
    ended_at: Date;
    pageviews: number;
    city: string;
    country: string;
  }>`
    SELECT organisation_id, visitor_id, started_at, ended_at, pageviews, city, country
    FROM sessions WHERE workspace_id = ${ws} AND organisation_id IS NOT NULL`.execute(
    database().db,
  );
  const countries = new Intl.DisplayNames(['en'], { type: 'region' });
  return Object.fromEntries(
    organisations.map((id) => {
      const mine = rows.filter((row) => row.organisation_id === id);
      const places = [
        ...new Set(mine.filter((row) => row.city).map((row) => `${row.city}|${row.country}`)),
      ].sort();
      const seconds = mine.reduce((sum, row) => sum + (+row.ended_at - +row.started_at), 0) / 1000;
      return [
        id,
        mine.length === 0
          ? { total_sessions: 0, unique_visitor_count: 0, total_pageviews: 0 }
          : {
              total_sessions: mine.length,
              unique_visitor_count: new Set(mine.map((row) => row.visitor_id)).size,
              total_pageviews: mine.reduce((sum, row) => sum + row.pageviews, 0),
              total_time_on_site: hms(seconds),
              first_seen: new Date(Math.min(...mine.map((row) => +row.started_at))).toISOString(),
              last_seen: new Date(Math.max(...mine.map((row) => +row.ended_at))).toISOString(),
              visitor_locations: places.map((place) => {
                const [city, country] = place.split('|') as [string, string];
                return `${city}, ${countries.of(country)}`;
              }),
            },
      ];
    }),
  );
}

async function shown() {
  const loaded = await loadOrganisations(database().db, ws, organisations);
  return Object.fromEntries(
    loaded.map((o) => [
      o.uuid,
      o.total_sessions === 0
        ? {
            total_sessions: o.total_sessions,
            unique_visitor_count: o.unique_visitor_count,
            total_pageviews: o.total_pageviews,
          }
        : {
            total_sessions: o.total_sessions,
            unique_visitor_count: o.unique_visitor_count,
            total_pageviews: o.total_pageviews,
            total_time_on_site: o.total_time_on_site,
            first_seen: o.first_seen,
            last_seen: o.last_seen,
            visitor_locations: o.visitor_locations,
          },
    ]),
  );
}

it('shows the figures its sessions give after every kind of change, statement after statement', async () => {
  const kinds = new Set<string>();
  let mixed = 0;
  for (let step = 0; step < 160; step++) {
    kinds.add(await change(step));
    expect(await shown(), `after statement ${step + 1}`).toEqual(await expected());
    const { rows } = await sql<{ kinds: number }>`
      SELECT count(DISTINCT ended_notified)::int AS kinds FROM sessions
      WHERE workspace_id = ${ws} AND organisation_id IS NOT NULL`.execute(database().db);
    if (rows[0]?.kinds === 2) mixed++;
  }
  expect([...kinds].sort()).toEqual([
    'delete',
    'end',
    'extend',
    'insert',
    'move',
    'place',
    'visitor',
  ]);
  // Both kinds of session took part at once: those kept and those counted when read.
  expect(mixed).toBeGreaterThan(20);
  // The list sorts by the same figures.
  const bySessions = await findOrganisationPage(
    database().db,
    {
      workspaceId: ws,
      range: null,
      statuses: 'all',
      sort: { key: 'sessions', descending: true },
    },
    { offset: 0, limit: 10 },
  );
  const wanted = await expected();
  const counts = bySessions.ids.map((id) => wanted[id]?.total_sessions ?? 0);
  expect(counts).toEqual([...counts].sort((a, b) => b - a));
});

it('takes a deleted organisation out, and lets its sessions count for none', async () => {
  const [gone, kept] = organisations as [string, string];
  await sql`UPDATE sessions SET organisation_id = ${gone}
    WHERE workspace_id = ${ws} AND organisation_id IS NULL`.execute(database().db);
  const before = await expected();
  expect(before[gone]?.total_sessions).toBeGreaterThan(0);
  await sql`DELETE FROM organisations WHERE workspace_id = ${ws} AND id = ${gone}`.execute(
    database().db,
  );
  const { rows } = await sql<{ n: number }>`
    SELECT (SELECT count(*) FROM organisation_figures WHERE organisation_id = ${gone})
      + (SELECT count(*) FROM organisation_place_months WHERE organisation_id = ${gone}) AS n`.execute(
    database().db,
  );
  expect(Number(rows[0]?.n)).toBe(0);
  expect((await shown())[kept]).toEqual(before[kept]);
});

/** Partitions of every table partitioned by month, as the partitions job makes them. */
const monthsOfEveryTable = (first: string, last: string) =>
  sql`SELECT create_month_partitions(t, ${first}::date, ${last}::date)
    FROM unnest(${PARTITIONED}::text[]) t`.execute(database().db);

it('reads first and last seen again when retention drops the month that held them', async () => {
  const { db } = database();
  const [, early, late, gone] = organisations as [string, string, string, string];
  await monthsOfEveryTable('2026-01-01', '2026-03-01');
  const at = (day: string, hour: number) =>
    new Date(`${day}T${String(hour).padStart(2, '0')}:00:00Z`);
  const session = (organisation: string, start: Date, ended: boolean) =>
    sql`(${ws}, ${randomUUID()}, ${pick(visitors)}, ${organisation}, ${start.toISOString()}::timestamptz,
      ${new Date(+start + 20 * 60_000).toISOString()}::timestamptz, 2, 'Berlin', 'DE', ${ended})`;
  // Each first seen in January. Later: `early` in February, ended, at several times, and in
  // March (its first ended session in February is its new first seen); `late` in February
  // only in sessions not ended yet, then in March (its first seen is read from all its
  // sessions); `gone` in February only in a session not ended yet (its kept figures go
  // whole); `wanderer` next in April, a month without a partition (the default one holds it).
  const wanderer = randomUUID();
  await sql`INSERT INTO organisations (workspace_id, id, domain)
    VALUES (${ws}, ${wanderer}, 'wanderer.example')`.execute(db);
  organisations.push(wanderer);
  await sql`
    INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
      pageviews, city, country, ended_notified)
    VALUES ${sql.join([
      ...[early, late, gone, wanderer].map((id) => session(id, at('2026-01-10', 9), true)),
      session(early, at('2026-03-04', 10), true),
      session(early, at('2026-02-24', 15), true),
      session(early, at('2026-02-22', 11), true),
      session(early, at('2026-02-26', 8), true),
      session(late, at('2026-02-23', 10), false),
      session(late, at('2026-03-02', 14), true),
      session(late, at('2026-03-05', 9), true),
      session(gone, at('2026-02-25', 12), false),
      session(wanderer, at('2026-04-10', 16), true),
    ])}`.execute(db);
  // The day after the limit passed January's end by more than a day: January goes whole.
  const expired = await deleteExpired(db, 1, new Date('2026-02-03T12:00:00Z'));
  expect(expired.sessions).toBeGreaterThanOrEqual(3);
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM sessions
    WHERE workspace_id = ${ws} AND started_at < '2026-02-01'`.execute(db);
  expect(rows[0]?.n).toBe(0);
  const want = await expected();
  // No longer January's, nor February's latest.
  expect(want[early]?.first_seen).toMatch(/^2026-02-(0[3-9]|1|2[0-2])/);
  const now = await shown();
  expect(want[wanderer]?.first_seen).toMatch(/^2026-04-10/);
  for (const id of [early, late, gone, wanderer]) expect(now[id], id).toEqual(want[id]);
  // What is kept for `late`, no longer hidden by its earlier session not ended yet.
  await sql`DELETE FROM sessions WHERE workspace_id = ${ws} AND organisation_id = ${late}
    AND NOT ended_notified`.execute(db);
  expect((await shown())[late]).toEqual((await expected())[late]);
});

it('reads first seen again from the next session, however far off, when the one holding it goes', async () => {
  const { db } = database();
  // May and June have partitions; September has none (the default partition holds it).
  await monthsOfEveryTable('2026-05-01', '2026-06-01');
  const apart = randomUUID();
  await sql`INSERT INTO organisations (workspace_id, id, domain)
    VALUES (${ws}, ${apart}, 'apart.example')`.execute(db);
  organisations.push(apart);
  const starts = ['2026-05-03T09:00', '2026-05-28T10:00', '2026-06-20T11:00', '2026-09-15T12:00'];
  const ids = starts.map(() => randomUUID());
  await sql`
    INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
      pageviews, city, country, ended_notified)
    VALUES ${sql.join(
      starts.map(
        (start, i) =>
          sql`(${ws}, ${ids[i]}, ${pick(visitors)}, ${apart}, ${`${start}:00Z`}::timestamptz,
            ${`${start}:00Z`}::timestamptz + interval '20 minutes', 2, 'Berlin', 'DE', true)`,
      ),
    )}`.execute(db);
  // Each deletion takes the session holding first seen: the next is in the same month, in
  // the next month's partition, then more than a month later, in the default partition.
  for (const [i, next] of ['2026-05-28', '2026-06-20', '2026-09-15'].entries()) {
    await sql`DELETE FROM sessions WHERE workspace_id = ${ws} AND id = ${ids[i]}`.execute(db);
    const want = (await expected())[apart];
    expect(want?.first_seen).toMatch(new RegExp(`^${next}`));
    expect((await shown())[apart]).toEqual(want);
  }
});
