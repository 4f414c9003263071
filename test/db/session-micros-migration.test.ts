import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { databaseOfItsOwn } from '../helpers/app.js';

// 0045 computes a session's length in double precision: the organisation figures take away
// what they added before it, so every length must come out as it did.

const db = databaseOfItsOwn();

it('gives every session length the same microseconds as before', async () => {
  await migrate(db().db, '0044_rollups_by_month');
  // Lengths from none to 40 years, at every microsecond scale, across a change of clocks.
  const lengths = sql`
    SELECT '2026-03-29T00:59:59.999999Z'::timestamptz AS started,
      '2026-03-29T00:59:59.999999Z'::timestamptz
        + make_interval(secs => (10 ^ (n / 10.0) * k / 50 + k / 1e6)::numeric(20, 6)) AS ended
    FROM generate_series(0, 90) n, generate_series(1, 50) k`;
  await sql`CREATE TABLE lengths AS ${lengths}`.execute(db().db);
  const micros = async () =>
    (
      await sql<{ micros: string }>`
        SELECT session_micros(started, ended)::text AS micros FROM lengths
        ORDER BY started, ended`.execute(db().db)
    ).rows.map((row) => row.micros);
  const before = await micros();
  await migrate(db().db);
  const after = await micros();
  expect(after).toEqual(before);
  expect(new Set(before).size).toBeGreaterThan(4000);
  const longest = await sql<{ years: number }>`
    SELECT max(extract(year FROM age(ended, started)))::int AS years FROM lengths`.execute(db().db);
  expect(longest.rows[0]?.years).toBeGreaterThanOrEqual(30);
});
