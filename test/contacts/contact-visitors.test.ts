import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetPerson } from '../../src/privacy/forget.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, pageview, processed, visit } from '../helpers/collect.js';
import { until } from '../helpers/wait.js';

// A contact's links to the browsers it identified from (contact_visitors) have no foreign key
// (migration 0030): a trigger removes the links of deleted contacts, and the writer links only
// contacts its own statement upserted. Checked here with contacts deleted at once, one by one
// and while the writer links them.

const SITE = 'https://site.example';
let t: TestApp;
let ws: string;
let script: string;
let send: ReturnType<typeof collector>;

beforeAll(async () => {
  t = await startTestApp({
    // Requests taken as they come: two sent one after the other go to two batches at once,
    // where requests gathering (INGEST_GATHER_MS) could put them in one.
    INGEST_GATHER_MS: '0',
    COLLECT_RATE_LIMIT_PER_IP: '100000',
    COLLECT_RATE_LIMIT_PER_SCRIPT: '100000',
  });
  const api = client(t.url, (await t.operator()).token);
  const workspace = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  ws = workspace.uuid;
  script = workspace.tracking_script_id;
  send = collector(t.url);
});
afterAll(() => t.close());

/** Each contact's linked visitors, by e-mail address. */
async function links(): Promise<Record<string, string[]>> {
  const { rows } = await sql<{ email: string; visitors: string[] }>`
    SELECT c.email, array_agg(cv.visitor_id::text ORDER BY cv.visitor_id) AS visitors
    FROM contact_visitors cv JOIN contacts c ON c.workspace_id = cv.workspace_id AND c.id = cv.contact_id
    WHERE cv.workspace_id = ${ws} GROUP BY c.email`.execute(t.database.db);
  return Object.fromEntries(rows.map((row) => [row.email, row.visitors]));
}

/** Links whose contact does not exist. */
async function orphans(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM contact_visitors cv
    WHERE NOT EXISTS (SELECT 1 FROM contacts c
                      WHERE c.workspace_id = cv.workspace_id AND c.id = cv.contact_id)`.execute(
    t.database.db,
  );
  return rows[0]?.n ?? -1;
}

/** A visitor identifies with each address, in one request. */
async function identifies(visitor: string, ...emails: string[]): Promise<void> {
  const at = Date.now();
  const events = emails.map((email, i) => identify(`${SITE}/signup`, email, at + i));
  expect((await send(visit(script, events, { visitor }))).status).toBe(202);
}

const sorted = (...ids: string[]) => ids.sort();

describe('a contact’s links to its browsers', () => {
  it('go with the contact, deleted alone or with others, and no other contact’s go', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await identifies(a, 'ann@links-firm.com', 'bea@links-firm.com');
    await identifies(b, 'ann@links-firm.com', 'cal@links-firm.com');
    await identifies(c, 'dot@links-firm.com', 'bea@links-firm.com');
    expect(await links()).toEqual({
      'ann@links-firm.com': sorted(a, b),
      'bea@links-firm.com': sorted(a, c),
      'cal@links-firm.com': [b],
      'dot@links-firm.com': [c],
    });

    await sql`DELETE FROM contacts WHERE workspace_id = ${ws} AND email = 'cal@links-firm.com'`.execute(
      t.database.db,
    );
    await sql`
      DELETE FROM contacts WHERE workspace_id = ${ws}
        AND email IN ('ann@links-firm.com', 'dot@links-firm.com')`.execute(t.database.db);
    expect(await links()).toEqual({ 'bea@links-firm.com': sorted(a, c) });
    expect(await orphans()).toBe(0);
    // Forgetting a person by address removes their contact and its links too.
    await forgetPerson(t.database.db, ws, { email: 'bea@links-firm.com' });
    expect(await links()).toEqual({});
    expect(await orphans()).toBe(0);
  });

  it('a contact deleted while the writer links it leaves no link behind', async () => {
    const email = 'eve@race-firm.com';
    const db = t.database.db;
    const other = new pg.Client({ connectionString: t.deps.config.databaseUrl ?? '' });
    const third = new pg.Client({ connectionString: t.deps.config.databaseUrl ?? '' });
    await other.connect();
    await third.connect();
    const waitingForLocks = async (n: number) =>
      until(async () => {
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'`.execute(
          db,
        );
        return (rows[0]?.n ?? 0) >= n;
      });
    try {
      // Deleted first, committed while the writer waits for it: the writer makes it anew.
      const first = randomUUID();
      await identifies(first, email);
      await other.query('BEGIN');
      await other.query('DELETE FROM contacts WHERE workspace_id = $1 AND email = $2', [ws, email]);
      const second = randomUUID();
      const sent = collector(t.url, { wait: false })(
        visit(script, [identify(`${SITE}/signup`, email, Date.now())], { visitor: second }),
      );
      expect((await sent).status).toBe(202);
      await waitingForLocks(1);
      await other.query('COMMIT');
      await processed(t.url);
      expect(await links()).toEqual({ [email]: [second] });

      // Linked first: the writer holds the contact until its commit (here held up by a page's
      // rollup row that a third transaction holds), and the deletion that waited for it
      // takes the new link along.
      const url = `${SITE}/race`;
      const at = Date.now();
      await send(visit(script, [pageview(url, at)]));
      await third.query('BEGIN');
      await third.query(
        'SELECT 1 FROM stats_page_days WHERE workspace_id = $1 AND url = $2 FOR UPDATE',
        [ws, url],
      );
      const linked = randomUUID();
      const linking = collector(t.url, { wait: false })(
        visit(script, [pageview(url, at + 1), identify(`${SITE}/signup`, email, at + 2)], {
          visitor: linked,
        }),
      );
      expect((await linking).status).toBe(202);
      await waitingForLocks(1);
      await other.query('BEGIN');
      const deleting = other.query('DELETE FROM contacts WHERE workspace_id = $1 AND email = $2', [
        ws,
        email,
      ]);
      await waitingForLocks(2);
      await third.query('COMMIT');
      await processed(t.url);
      await deleting;
      await other.query('COMMIT');
      expect(await links()).toEqual({});
      expect(await orphans()).toBe(0);
    } finally {
      await other.query('ROLLBACK').catch(() => {});
      await third.query('ROLLBACK').catch(() => {});
      await other.end();
      await third.end();
    }
  });

  it('contacts deleted over and over while the writer links them leave no link without one', async () => {
    const emails = Array.from({ length: 6 }, (_, i) => `p${i}@churn-firm.com`);
    const acknowledge = collector(t.url, { wait: false });
    let sending = true;
    const deleting = (async () => {
      let rounds = 0;
      while (sending || rounds < 3) {
        // One a statement: the writer, too, locks contacts one by one, in order.
        await sql`
          DELETE FROM contacts WHERE workspace_id = ${ws}
            AND email = ${emails[rounds % emails.length]}`.execute(t.database.db);
        rounds++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          acknowledge(
            visit(script, [
              identify(`${SITE}/signup`, emails[(round + i) % emails.length] as string, Date.now()),
              identify(
                `${SITE}/signup`,
                emails[(round * 7 + i) % emails.length] as string,
                Date.now(),
              ),
            ]),
          ),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(202));
    }
    await processed(t.url, 60_000);
    sending = false;
    await deleting;
    expect(await orphans()).toBe(0);
  });
});
