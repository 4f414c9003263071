import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { presentStats } from '../../src/stats/present.js';
import { readStats } from '../../src/stats/store.js';
import { seeded, workspaceDatabase } from '../helpers/seeded.js';

// The visitor counts are kept incrementally (migration 0023) so that a range's distinct
// visitors are a sum; here they are checked against a count from the sessions themselves,
// for every range of ten days, after inserts, visits past midnight, late attribution, days
// filled in between others, and deletions, each in statements of many sessions.
const ws = randomUUID();
const organisations = [randomUUID(), randomUUID()];
const visitors = Array.from({ length: 12 }, () => randomUUID());
const DAYS = Array.from({ length: 10 }, (_, i) => `2026-02-${String(i + 1).padStart(2, '0')}`);

const database = workspaceDatabase(ws, organisations);

const { next, pick } = seeded(23);

interface StoredSession {
  visitor_id: string;
  organisation_id: string | null;
  started_at: Date;
  ended_at: Date;
}

/** What the API must say, counted from the sessions one by one. */
async function expected(first: string, last: string) {
  const { rows } = await sql<StoredSession>`
    SELECT visitor_id, organisation_id, started_at, ended_at FROM sessions
    WHERE workspace_id = ${ws}`.execute(database().db);
  const days = new Map<string, { all: Set<string>; identified: Set<string> }>();
  for (const s of rows) {
    const end = s.ended_at.toISOString().slice(0, 10);
    for (let at = s.started_at.getTime(); ; at += 86_400_000) {
      const day = new Date(at).toISOString().slice(0, 10);
      if (day > end) break;
      const counted = days.get(day) ?? { all: new Set(), identified: new Set() };
      counted.all.add(s.visitor_id);
      if (s.organisation_id) counted.identified.add(s.visitor_id);
      days.set(day, counted);
    }
  }
  const inRange = DAYS.filter((day) => day >= first && day <= last);
  const union = (key: 'all' | 'identified') =>
    new Set(inRange.flatMap((day) => [...(days.get(day)?.[key] ?? [])])).size;
  return {
    days: inRange.map((day) => [days.get(day)?.all.size ?? 0, days.get(day)?.identified.size ?? 0]),
    totals: { visitors: union('all'), identified_visitors: union('identified') },
  };
}

/** Every range within the ten days: each day's counts and the range's distinct visitors. */
async function expectEveryRangeCounted() {
  let checked = 0;
  for (const [i, first] of DAYS.entries()) {
    for (const last of DAYS.slice(i)) {
      const range = { first, last };
      const data = presentStats(range, await readStats(database().db, ws, range));
      const shown = {
        days: data.days.map((d) => [d.visitors, d.identified_visitors]),
        totals: {
          visitors: data.totals.visitors,
          identified_visitors: data.totals.identified_visitors,
        },
      };
      expect(shown, `${first} to ${last}`).toEqual(await expected(first, last));
      checked += 1;
    }
  }
  return checked;
}

/** Sessions of random visitors on random days (some past midnight), in one statement. */
async function insertSessions(count: number, days: readonly string[]) {
  const sessions = Array.from({ length: count }, () => {
    const start = Date.parse(`${pick(days)}T00:00:00Z`) + Math.floor(next() * 86_400_000);
    // One in four runs up to two hours on, across midnight when it starts late.
    const length = next() < 0.25 ? Math.floor(next() * 7_200_000) : 60_000;
    return {
      id: randomUUID(),
      visitor: pick(visitors),
      organisation: next() < 0.4 ? pick(organisations) : null,
      start: new Date(start).toISOString(),
      end: new Date(start + length).toISOString(),
    };
  });
  await sql`
    INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at)
    SELECT ${ws}, * FROM unnest(${sessions.map((s) => s.id)}::uuid[],
      ${sessions.map((s) => s.visitor)}::uuid[], ${sessions.map((s) => s.organisation)}::uuid[],
      ${sessions.map((s) => s.start)}::timestamptz[], ${sessions.map((s) => s.end)}::timestamptz[])`.execute(
    database().db,
  );
}

it('keeps every range’s visitors and identified visitors right through every kind of change', async () => {
  const db = database().db;
  // Every other day first, then the days between: a visitor's new day lands between two.
  await insertSessions(
    25,
    DAYS.filter((_, i) => i % 2 === 0),
  );
  await insertSessions(
    25,
    DAYS.filter((_, i) => i % 2 === 1),
  );
  expect(await expectEveryRangeCounted()).toBe(55);

  // Visits go on past midnight; some visitors are identified later, others lose theirs.
  await sql`
    UPDATE sessions SET ended_at = ended_at + interval '20 hours'
    WHERE workspace_id = ${ws} AND id IN (SELECT id FROM sessions ORDER BY id LIMIT 8)`.execute(db);
  await sql`
    UPDATE sessions SET organisation_id = ${organisations[1]}
    WHERE workspace_id = ${ws} AND visitor_id = ANY(${visitors.slice(0, 4)}::uuid[])`.execute(db);
  await sql`
    UPDATE sessions SET organisation_id = NULL
    WHERE workspace_id = ${ws} AND visitor_id = ANY(${visitors.slice(4, 6)}::uuid[])`.execute(db);
  await expectEveryRangeCounted();

  // Sessions go, some from the middle of a visitor's days, and an organisation with its own.
  await sql`
    DELETE FROM sessions WHERE workspace_id = ${ws}
      AND id IN (SELECT id FROM sessions ORDER BY md5(id::text) LIMIT 15)`.execute(db);
  await sql`DELETE FROM organisations WHERE id = ${organisations[0]}`.execute(db);
  await expectEveryRangeCounted();

  // Nothing is left behind when every session is gone.
  await sql`DELETE FROM sessions WHERE workspace_id = ${ws}`.execute(db);
  await expectEveryRangeCounted();
  const left = await sql<{ n: number }>`
    SELECT (SELECT count(*) FROM stats_visitor_days)::int
      + (SELECT count(*) FROM stats_visitor_counts)::int AS n`.execute(db);
  expect(left.rows[0]?.n).toBe(0);
});
