import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { databaseOfItsOwn } from '../helpers/app.js';

// 0040 keeps each workspace's longest session, the bound reads of overlapping sessions rely
// on: a service's sessions stored before it must count, and so must what comes after.

const db = databaseOfItsOwn();

it('counts the sessions stored before it, and keeps the longest as sessions grow', async () => {
  await migrate(db().db, '0039_month_rollups');
  const [busy, quiet, empty] = [randomUUID(), randomUUID(), randomUUID()];
  for (const id of [busy, quiet, empty]) {
    await sql`INSERT INTO workspaces (id, name, url, usage_limit)
      VALUES (${id}, 'Site', 'https://site.example', 1000)`.execute(db().db);
  }
  const session = (workspace: string, start: string, minutes: number) =>
    sql`(${workspace}, ${randomUUID()}, ${randomUUID()}, ${start}::timestamptz,
      ${start}::timestamptz + ${`${minutes} minutes`}::interval)`;
  await sql`
    INSERT INTO sessions (workspace_id, id, visitor_id, started_at, ended_at)
    VALUES ${sql.join([
      session(busy, '2026-03-01T10:00:00Z', 12),
      session(busy, '2026-03-31T23:00:00Z', 190),
      session(quiet, '2026-03-02T10:00:00Z', 0),
    ])}`.execute(db().db);

  await migrate(db().db);
  const lengths = async () =>
    Object.fromEntries(
      (
        await sql<{ workspace_id: string; longest: string }>`
          SELECT workspace_id, longest::text AS longest FROM session_lengths`.execute(db().db)
      ).rows.map((row) => [row.workspace_id, row.longest]),
    );
  expect(await lengths()).toEqual({ [busy]: '03:10:00', [quiet]: '00:00:00' });

  // A session made longer raises it; a shorter one, or one deleted, leaves it.
  await sql`UPDATE sessions SET ended_at = ended_at + interval '1 hour'
    WHERE workspace_id = ${quiet}`.execute(db().db);
  await sql`INSERT INTO sessions (workspace_id, id, visitor_id, started_at, ended_at)
    VALUES ${session(busy, '2026-04-01T08:00:00Z', 5)}, ${session(empty, '2026-04-01T08:00:00Z', 7)}`.execute(
    db().db,
  );
  await sql`DELETE FROM sessions WHERE workspace_id = ${busy}`.execute(db().db);
  expect(await lengths()).toEqual({ [busy]: '03:10:00', [quiet]: '01:00:00', [empty]: '00:07:00' });
});
