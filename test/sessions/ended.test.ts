import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../../src/db/connect.js';
import { endedSessionsStatement, recordEndedSessions } from '../../src/sessions/ended.js';
import { createTestDatabase } from '../helpers/app.js';

// session.ended's job (sessions/ended.ts) runs four times a second on every server: a round
// must read the sessions it ends, not every session still running.

const IDLE_S = 1800;
const RUNNING = 3000;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let handle: Db;
const workspace = randomUUID();

/** Sessions of `workspace` whose last event was `agoSeconds` ago. */
async function sessions(count: number, agoSeconds: number): Promise<void> {
  await sql`
    INSERT INTO sessions (workspace_id, id, visitor_id, started_at, ended_at)
    SELECT ${workspace}, gen_random_uuid(), gen_random_uuid(),
      now() - make_interval(secs => ${agoSeconds + 60}), now() - make_interval(secs => ${agoSeconds})
    FROM generate_series(1, ${count})`.execute(handle.db);
}

/** Every plan node of an EXPLAIN (FORMAT JSON) answer. */
function nodes(plan: Record<string, unknown>): Record<string, unknown>[] {
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [plan, ...children.flatMap(nodes)];
}

beforeAll(async () => {
  database = await createTestDatabase({ migrated: true });
  handle = connect(database.url, 2);
  await sql`INSERT INTO workspaces (id, name, url, usage_limit)
    VALUES (${workspace}, 'Site', 'https://site.example', 1000)`.execute(handle.db);
  await sessions(RUNNING, 60);
  await sessions(3, 2 * IDLE_S);
  await sql`ANALYZE sessions`.execute(handle.db);
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

describe('the session.ended job', () => {
  it('reads only the sessions a round ends, however many are still running', async () => {
    // The round as the job runs it, explained with its rows counted, then undone.
    const undo = new Error('undo');
    let plan: Record<string, unknown> | undefined;
    await handle.db
      .transaction()
      .execute(async (tx) => {
        const { rows } = await sql<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>`
          EXPLAIN (ANALYZE, FORMAT JSON) ${endedSessionsStatement(IDLE_S)}`.execute(tx);
        plan = rows[0]?.['QUERY PLAN'][0].Plan;
        throw undo;
      })
      .catch((error: unknown) => {
        if (error !== undo) throw error;
      });
    expect(plan).toBeDefined();
    const read = nodes(plan as Record<string, unknown>)
      .filter((node) => String(node['Relation Name'] ?? '').startsWith('sessions'))
      .reduce(
        (sum, node) =>
          sum + Number(node['Actual Rows'] ?? 0) + Number(node['Rows Removed by Filter'] ?? 0),
        0,
      );
    expect(read).toBeLessThan(50);
  });

  it('ends the sessions idle for longer than the idle time, once', async () => {
    expect(await recordEndedSessions(handle.db, IDLE_S)).toBe(3);
    expect(await recordEndedSessions(handle.db, IDLE_S)).toBe(0);
    const { rows } = await sql<{ running: string }>`
      SELECT count(*) AS running FROM sessions WHERE NOT ended_notified`.execute(handle.db);
    expect(Number(rows[0]?.running)).toBe(RUNNING);
  });
});
