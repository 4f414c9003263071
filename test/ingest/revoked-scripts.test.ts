import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startSecondApp, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';

// Two servers on one database: what one is told, the other must honour at once, though its
// cache of tracking scripts (2 s) still holds the script as active.
const SITE = 'https://site.example';
let a: TestApp;
let b: Awaited<ReturnType<typeof startSecondApp>>;

beforeAll(async () => {
  const unlimited = '100000000';
  a = await startTestApp({
    COLLECT_RATE_LIMIT_PER_IP: unlimited,
    COLLECT_RATE_LIMIT_PER_SCRIPT: unlimited,
  });
  b = await startSecondApp(a);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** What the database holds of the workspace's traffic: its page URLs, and its sessions. */
async function stored(workspaceId: string) {
  const events = await sql<{ url: string }>`
    SELECT url FROM events WHERE workspace_id = ${workspaceId}`.execute(a.database.db);
  const sessions = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM sessions WHERE workspace_id = ${workspaceId}`.execute(
    a.database.db,
  );
  return { urls: events.rows.map((row) => row.url).sort(), sessions: sessions.rows[0]?.n ?? 0 };
}

/** A workspace whose script server B has just taken a visit for (so B has it cached). */
async function workspaceCachedByB() {
  const operator = await a.operator();
  const api = client(a.url, operator.token);
  const workspace = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  const script: string = workspace.tracking_script_id;
  const first = await collector(b.url)(visit(script, [pageview(`${SITE}/first`, Date.now())]));
  expect(first.status).toBe(202);
  return { api, id: workspace.uuid as string, script };
}

// How the workspace stops taking events, its answer, and the collector's answer afterwards.
const ends = {
  unlinked: {
    call: (id: string): [string, string] => ['POST', `/v1/workspaces/${id}/unlink`],
    answer: 200,
    collect: 410,
  },
  deleted: {
    call: (id: string): [string, string] => ['DELETE', `/v1/workspaces/${id}`],
    answer: 204,
    collect: 404,
  },
} as const;

describe.each(Object.entries(ends))('the script of a workspace %s', (_name, end) => {
  it(`is refused (${end.collect}) by the other server at once, and nothing of it is stored`, async () => {
    const { api, id, script } = await workspaceCachedByB();
    const [method, path] = end.call(id);
    expect((await api(method, path)).status).toBe(end.answer);

    const after = await collector(b.url)(visit(script, [pageview(`${SITE}/after`, Date.now())]));
    expect(after.status).toBe(end.collect);
    expect(after.body).toEqual({ success: false, message: expect.any(String) });
    // A bot's request, whose events are all dropped, is answered the same way.
    const bot = await collector(b.url)(visit(script, [pageview(`${SITE}/bot`, Date.now())]), {
      'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)',
    });
    expect(bot.status).toBe(end.collect);
    expect(await stored(id)).toEqual({ urls: [`${SITE}/first`], sessions: 1 });
  });

  it('stores nothing after the answer, from requests in flight on either server', async () => {
    const { api, id, script } = await workspaceCachedByB();
    // A visit of its own per request, each page a URL of its own: what is stored names it.
    const sent: { url: string; at: number; status: number }[] = [];
    let stop = false;
    let n = 0;
    const loop = async (base: string) => {
      while (!stop) {
        const url = `${SITE}/page/${n++}`;
        const at = performance.now();
        const answer = await collector(base)(visit(script, [pageview(url, Date.now())]));
        sent.push({ url, at, status: answer.status });
      }
    };
    const loops = [a.url, b.url, a.url, b.url, a.url, b.url].map(loop);
    await sleep(300);
    const [method, path] = end.call(id);
    const answer = await api(method, path);
    const answered = performance.now();
    expect(answer.status).toBe(end.answer);
    const atAnswer = await stored(id);
    await sleep(300);
    stop = true;
    await Promise.all(loops);

    // Nothing came in after the answer, whatever was in flight then.
    expect(await stored(id)).toEqual(atAnswer);
    // Every request sent after it was refused; the acknowledged ones, and only they, are stored.
    const late = sent.filter((request) => request.at > answered);
    expect(late.length).toBeGreaterThan(0);
    expect(new Set(late.map((request) => request.status))).toEqual(new Set([end.collect]));
    expect(new Set(sent.map((request) => request.status))).toEqual(new Set([202, end.collect]));
    const acknowledged = sent.filter((request) => request.status === 202).map((r) => r.url);
    expect(atAnswer.urls).toEqual([`${SITE}/first`, ...acknowledged].sort());
  });
});
