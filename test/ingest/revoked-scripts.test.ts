import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startSecondApp, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, processed, visit } from '../helpers/collect.js';

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
// What happens to requests acknowledged before and not yet processed: an unlinked script's
// are stored (contract §19: nothing acknowledged is lost); a deleted workspace's data is
// going anyway, so they are discarded, and counted.
const ends = {
  unlinked: {
    call: (id: string): [string, string] => ['POST', `/v1/workspaces/${id}/unlink`],
    answer: 200,
    collect: 410,
    acknowledgedKept: true,
  },
  deleted: {
    call: (id: string): [string, string] => ['DELETE', `/v1/workspaces/${id}`],
    answer: 204,
    collect: 404,
    acknowledgedKept: false,
  },
} as const;

/** Requests the workers of both servers processed and discarded, as /metrics counts them. */
async function handled(): Promise<{ processed: number; discarded: number }> {
  const count = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  const total = { processed: 0, discarded: 0 };
  for (const base of [a.url, b.url]) {
    const text = await (await fetch(`${base}/metrics`)).text();
    total.processed += count(text, /^footfall_ingest_processed_requests_total (\d+)/m);
    total.discarded += count(
      text,
      /^footfall_ingest_discarded_total\{reason="script_deleted"\} (\d+)/m,
    );
  }
  return total;
}

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

  it('acknowledges nothing after the answer, from requests in flight on either server', async () => {
    const { api, id, script } = await workspaceCachedByB();
    const before = await handled();
    // A visit of its own per request, each page a URL of its own: what is stored names it.
    // Answered at the acknowledgement, so requests are still in the inbox at the answer.
    const sent: { url: string; at: number; status: number }[] = [];
    let stop = false;
    let n = 0;
    const loop = async (base: string) => {
      while (!stop) {
        const url = `${SITE}/page/${n++}`;
        const at = performance.now();
        const answer = await collector(base, { wait: false })(
          visit(script, [pageview(url, Date.now())]),
        );
        sent.push({ url, at, status: answer.status });
        await sleep(5); // some hundreds in all: enough in flight, little for the worker
      }
    };
    const loops = [a.url, b.url, a.url, b.url, a.url, b.url].map(loop);
    await sleep(300);
    const [method, path] = end.call(id);
    const answer = await api(method, path);
    const answered = performance.now();
    expect(answer.status).toBe(end.answer);
    await sleep(300);
    stop = true;
    await Promise.all(loops);
    await processed(a.url);

    // Every request sent after the answer was refused, whatever was in flight then.
    const late = sent.filter((request) => request.at > answered);
    expect(late.length).toBeGreaterThan(0);
    expect(new Set(late.map((request) => request.status))).toEqual(new Set([end.collect]));
    expect(new Set(sent.map((request) => request.status))).toEqual(new Set([202, end.collect]));
    const acknowledged = sent.filter((request) => request.status === 202).map((r) => r.url);
    const urls = (await stored(id)).urls;
    if (end.acknowledgedKept) {
      // The acknowledged ones, and only they, are stored.
      expect(urls).toEqual([`${SITE}/first`, ...acknowledged].sort());
    } else {
      // Nothing unacknowledged is stored (what is left before the purge), and each
      // acknowledged request was either processed or discarded and counted.
      expect(acknowledged).toEqual(
        expect.arrayContaining(urls.filter((u) => u !== `${SITE}/first`)),
      );
      const after = await handled();
      expect(after.processed - before.processed + after.discarded - before.discarded).toBe(
        acknowledged.length,
      );
    }
  });
});

describe('an unlink and the appends that hold the script', () => {
  it('waits for an append under way, and the appends after it are refused', async () => {
    const { api, id, script } = await workspaceCachedByB();
    // An append's hold on its script (the collector's statement begins with it), its
    // transaction kept open.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const append = a.database.db.transaction().execute(async (trx) => {
      await sql`SELECT lock_tracking_scripts(${[script]}::text[])`.execute(trx);
      holding();
      await released;
    });
    await held;
    let unlinked = false;
    const unlink = api('POST', `/v1/workspaces/${id}/unlink`).then((answer) => {
      unlinked = true;
      return answer;
    });
    try {
      await sleep(400);
      expect(unlinked).toBe(false);
    } finally {
      release();
      await append;
    }
    expect((await unlink).status).toBe(200);
    await expect(
      sql`SELECT lock_tracking_scripts(${[script]}::text[])`.execute(a.database.db),
    ).rejects.toMatchObject({ code: 'FF410' });
    // A worker stores what was acknowledged before the unlink: its hold still succeeds.
    await sql`SELECT lock_tracking_scripts(${[script]}::text[], keep_unlinked => true)`.execute(
      a.database.db,
    );
  });
});
