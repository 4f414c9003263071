import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/auth/users.js';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { PREPARED } from '../../src/db/prepared.js';
import { UNKNOWN_LOCATION } from '../../src/identify/geo.js';
import { storeEvents } from '../../src/ingest/store.js';
import { createWorkspace } from '../../src/workspaces/store.js';
import { createTestDatabase } from '../helpers/app.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
// One connection, so every statement and the catalogue read below share it.
let one: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  one = connect(database.url, 1);
  await migrate(one.db);
});
afterAll(async () => {
  await one.close();
  await database.drop();
});

/** The connection's prepared statements: name and text. */
const preparedHere = async () =>
  (
    await sql<{ name: string; statement: string }>`
      SELECT name, statement FROM pg_prepared_statements ORDER BY prepare_time`.execute(one.db)
  ).rows;

describe('prepared statements', () => {
  it('keeps a marked statement parsed on its connection, once, whatever its values', async () => {
    const square = (n: number) =>
      sql<{ square: number }>`${PREPARED}SELECT ${n}::int * ${n}::int AS square`.execute(one.db);
    expect((await square(3)).rows).toEqual([{ square: 9 }]);
    expect((await square(12)).rows).toEqual([{ square: 144 }]);
    await sql`SELECT ${1}::int AS unmarked`.execute(one.db);

    const marked = (await preparedHere()).filter((p) => p.statement.includes('AS square'));
    expect(marked).toHaveLength(1);
    expect(marked[0]?.name).toMatch(/^footfall_[0-9a-f]{24}$/);
    expect((await preparedHere()).some((p) => p.statement.includes('unmarked'))).toBe(false);
  });

  it("prepares the collector's group write: the latest sessions and the upsert", async () => {
    const user = await createUser(one.db, `prepared-${randomUUID()}@example.com`);
    const workspace = await createWorkspace(one.db, user.id, {
      name: 'prepared',
      url: 'https://www.example.com',
      usageLimit: 100,
    });
    const visit = {
      workspaceId: workspace.id,
      visitorId: randomUUID(),
      browser: 'Chrome',
      deviceType: 'desktop',
      location: UNKNOWN_LOCATION,
      organisationId: null,
    };
    const view = (url: string) => ({
      visit,
      event: { type: 'pageview' as const, ts: new Date(), url, data: {} },
    });
    await storeEvents(one.db, [view('https://www.example.com/')], 30 * 60_000);
    await storeEvents(one.db, [view('https://www.example.com/pricing')], 30 * 60_000);

    const texts = (await preparedHere()).map((p) => p.statement);
    expect(texts.filter((t) => t.includes('SELECT DISTINCT ON'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('INSERT INTO sessions'))).toHaveLength(1);
    // Both views stored, in one session: the prepared statements did their work.
    const sessions = await one.db
      .selectFrom('sessions')
      .select('pageviews')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(sessions).toEqual([{ pageviews: 2 }]);
  });
});
