import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { presentStats } from '../../src/stats/present.js';
import { readStats } from '../../src/stats/store.js';
import { createTestDatabase } from '../helpers/app.js';
import { workspaceWithOrganisation } from '../helpers/migration-rows.js';

let database: Db;
let drop: () => Promise<void>;

beforeAll(async () => {
  const created = await createTestDatabase();
  drop = created.drop;
  database = connect(created.url);
});
afterAll(async () => {
  await database.close();
  await drop();
});

const range = { first: '2026-03-01', last: '2026-03-02' };
const PAGE = (path: string) => `https://site.example/${path}`;

it('counts the visitors and identified views stored before it, and keeps counting after', async () => {
  const db = database.db;
  await migrate(db, '0020_script_locks');
  const { workspace: ws, organisation: acme } = await workspaceWithOrganisation(
    db,
    'https://site.example',
  );
  const [one, two] = [randomUUID(), randomUUID()];
  const [morning, night, unknown] = [randomUUID(), randomUUID(), randomUUID()];
  // Visitor one: Acme's, twice, the second time until past midnight. Visitor two: unknown.
  await sql`
    INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at, pageviews)
    VALUES (${ws}, ${morning}, ${one}, ${acme}, '2026-03-01T10:00Z', '2026-03-01T10:05Z', 2),
      (${ws}, ${night}, ${one}, ${acme}, '2026-03-01T23:55Z', '2026-03-02T00:10Z', 2),
      (${ws}, ${unknown}, ${two}, NULL, '2026-03-02T09:00Z', '2026-03-02T09:00Z', 1)`.execute(db);
  await sql`
    INSERT INTO events (workspace_id, session_id, type, ts, url) VALUES
      (${ws}, ${morning}, 'pageview', '2026-03-01T10:00Z', ${PAGE('a')}),
      (${ws}, ${morning}, 'click', '2026-03-01T10:03Z', ${PAGE('a')}),
      (${ws}, ${morning}, 'pageview', '2026-03-01T10:05Z', ${PAGE('b')}),
      (${ws}, ${night}, 'pageview', '2026-03-01T23:55Z', ${PAGE('a')}),
      (${ws}, ${night}, 'pageview', '2026-03-02T00:10Z', ${PAGE('c')}),
      (${ws}, ${unknown}, 'pageview', '2026-03-02T09:00Z', ${PAGE('a')})`.execute(db);

  expect(await migrate(db)).toContain('0023_match_rate');
  const stats = async () => presentStats(range, await readStats(db, ws, range));
  let data = await stats();
  expect(data.days).toEqual([
    {
      date: '2026-03-01',
      sessions: 2,
      organisations: 1,
      pageviews: 4,
      visitors: 1,
      identified_visitors: 1,
    },
    {
      date: '2026-03-02',
      sessions: 0,
      organisations: 0,
      pageviews: 0,
      visitors: 2,
      identified_visitors: 1,
    },
  ]);
  expect(data.totals).toEqual({
    visitors: 2,
    identified_visitors: 1,
    sessions: 2,
    organisations: 1,
    pageviews: 4,
  });
  expect(data.top_pages).toEqual([
    { url: PAGE('a'), pageviews: 2 },
    { url: PAGE('b'), pageviews: 1 },
    { url: PAGE('c'), pageviews: 1 },
  ]);

  // The triggers go on from the backfilled rows: visitor two turns out to be Acme's too,
  // then visitor one's morning is deleted with its events.
  await sql`UPDATE sessions SET organisation_id = ${acme} WHERE id = ${unknown}`.execute(db);
  data = await stats();
  expect(data.days.map((d) => d.identified_visitors)).toEqual([1, 2]);
  expect(data.top_pages[0]).toEqual({ url: PAGE('a'), pageviews: 3 });
  await sql`
    WITH gone AS (DELETE FROM events WHERE session_id = ${morning})
    DELETE FROM sessions WHERE id = ${morning}`.execute(db);
  data = await stats();
  expect(data.totals).toEqual({
    visitors: 2,
    identified_visitors: 2,
    sessions: 2,
    organisations: 1,
    pageviews: 3,
  });
  expect(data.top_pages).toEqual([
    { url: PAGE('a'), pageviews: 2 },
    { url: PAGE('c'), pageviews: 1 },
  ]);
});
