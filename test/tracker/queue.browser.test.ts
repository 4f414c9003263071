import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';

// What the tracker does with the events the collector did not take (contract §19): each has
// an id, and what was not answered is sent again, later, by the same page or the next one,
// and stored once. The collector is the real app; only the network in between is played.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface SentEvent {
  id: string;
  type: string;
  ts: number;
  url: string;
  name?: string;
}
/** A collect request as the browser sent it, and when. */
interface Sent {
  at: number;
  events: SentEvent[];
}
interface Stored {
  views: { url: string }[];
  events: { event_type: string; name?: string; triggered_at: string }[];
}

let t: TestApp;
let api: ReturnType<typeof client>;
let browser: Browser;
const servers: Server[] = [];

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
  // Loopback visitors are an organisation, so their sessions are listed by the API.
  await upsertIpRanges(t.database.db, [
    { network: '127.0.0.0/8', domain: 'acme.com', name: 'Acme' },
  ]);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  for (const server of servers) server.close();
  await t?.close();
});

/**
 * A customer site with a workspace of its own, on another loopback address; its snippet loads
 * the script from `through` when given (then the tracker sends there too).
 */
async function site(through = t.url) {
  const workspace: { uuid: string; tracking_script_snippet: string } = (
    await api('POST', '/v1/workspaces', { url: 'http://127.0.0.2' })
  ).body.data;
  const snippet = workspace.tracking_script_snippet.replace(t.url, through);
  const page = (title: string, head: string) =>
    `<!doctype html><html><head><title>${title}</title>${head}</head><body><h1>${title}</h1></body></html>`;
  const pages: Record<string, string> = {
    '/': page('Home', snippet),
    '/next': page('Next', snippet),
    '/plain': page('Plain', ''), // a page of the site without the snippet
  };
  const server = createServer((request, response) => {
    const body = pages[(request.url ?? '/').split('?')[0] as string];
    response.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  servers.push(server);
  return { workspace, url: `http://127.0.0.2:${(server.address() as AddressInfo).port}` };
}

/**
 * The app behind a proxy that answers collect requests 503 while `refusing`, as a collector
 * whose backlog is full does. Beacons too, which Playwright's routes do not see.
 */
async function overloadedCollector() {
  const state = { refusing: true };
  const app = new URL(t.url);
  const server = createServer((request, response) => {
    if (state.refusing && request.method === 'POST' && request.url === '/t/collect') {
      request.resume();
      response.writeHead(503, { 'access-control-allow-origin': '*', 'retry-after': '1' });
      response.end('{"message":"The events could not be stored; send them again."}');
      return;
    }
    const target = { host: app.hostname, port: app.port, path: request.url };
    const onward = forward(
      { ...target, method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    onward.on('error', () => response.destroy());
    request.pipe(onward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Every collect request the context's pages make, beacons included, as they leave. */
function collected(context: BrowserContext): Sent[] {
  const sent: Sent[] = [];
  context.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/t/collect')) {
      sent.push({ at: Date.now(), events: JSON.parse(request.postData() ?? '{}').events });
    }
  });
  return sent;
}

/** The views and events the sessions API shows for the workspace today. */
async function stored(workspace: { uuid: string }): Promise<Stored> {
  const today = new Date().toISOString().slice(0, 10);
  const path = `/v1/workspaces/${workspace.uuid}/sessions?date=${today}&size=1000`;
  const { body } = await api('GET', path);
  return {
    views: body.data.flatMap((session: Stored) => session.views),
    events: body.data.flatMap((session: Stored) => session.events),
  };
}

const customNames = (what: Stored) =>
  what.events.filter((event) => event.event_type === 'custom').map((event) => event.name);

/** Reads until `done` holds for the answer, or the time is up (then returns the last). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(200);
    value = await read();
  }
  return value;
}

const loaded = (page: Page) =>
  page.waitForFunction(() => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded);

/** footfall('track', name) for each name, in one go, as a page's own script would. */
const track = (page: Page, ...names: string[]) =>
  page.evaluate((list) => {
    const footfall = (globalThis as unknown as { footfall: (...a: unknown[]) => void }).footfall;
    for (const name of list) footfall('track', name);
  }, names);

/** A person's look at the page, timed in the page, so it ends after the tracker's timers. */
const look = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 1000)));

const sentEvents = (sent: Sent[]) => sent.flatMap((request) => request.events);

describe('the tracker and its unsent events in Chromium', () => {
  it('gives every event a random UUID of its own, with crypto.randomUUID and on pages without it', async () => {
    const { workspace, url } = await site();
    const visits: Sent[][] = [];
    for (const secure of [true, false]) {
      const context = await browser.newContext();
      // http pages (not a secure context) have no crypto.randomUUID.
      if (!secure) await context.addInitScript('delete Crypto.prototype.randomUUID');
      visits.push(collected(context));
      const page = await context.newPage();
      await page.goto(`${url}/`);
      await loaded(page);
      expect(await page.evaluate('typeof crypto.randomUUID')).toBe(
        secure ? 'function' : 'undefined',
      );
      await look(page);
      await track(page, `${secure}-one`, `${secure}-two`);
      await track(page, `${secure}-three`);
      await page.goto(`${url}/next`);
      await loaded(page);
      await look(page);
      await context.close();
    }

    const sent = visits.flat();
    const events = sentEvents(sent);
    // Each visit: 2 views, the first left, 3 custom events; and what was sent again.
    expect(events.length).toBeGreaterThanOrEqual(12);
    for (const event of events) expect(event.id).toMatch(UUID);
    // One id is one event: sent again, it is the same event; two events never share one.
    const byId = new Map<string, string>();
    for (const { id, ...event } of events) {
      expect(byId.get(id) ?? JSON.stringify(event)).toBe(JSON.stringify(event));
      byId.set(id, JSON.stringify(event));
    }
    expect(new Set(byId.values()).size).toBe(byId.size);
    for (const request of sent) {
      expect(new Set(request.events.map((event) => event.id)).size).toBe(request.events.length);
    }

    const names = ['one', 'two', 'three'].flatMap((name) => [`true-${name}`, `false-${name}`]);
    const after = await until(
      () => stored(workspace),
      (s) => customNames(s).length >= 6 && s.views.length >= 4,
    );
    expect(customNames(after).sort()).toEqual(names.sort());
    expect(after.views.map((view) => new URL(view.url).pathname).sort()).toEqual([
      '/',
      '/',
      '/next',
      '/next',
    ]);
  });

  it('sends again, after the Retry-After of each 503, what the collector did not take, and it is stored once', async () => {
    const { workspace, url } = await site();
    const context = await browser.newContext();
    const sent = collected(context);
    const refusedAt: number[] = [];
    await context.route('**/t/collect', async (route) => {
      if (refusedAt.length === 2) return route.fallback();
      // The first 503 is a collector that kept nothing. The second comes after the collector
      // stored the events: its answer is lost on the way back, so they are sent again.
      if (refusedAt.length === 1) await route.fetch();
      refusedAt.push(Date.now());
      await route.fulfill({
        status: 503,
        contentType: 'application/json',
        headers: {
          'access-control-allow-origin': '*',
          // A page of another origin reads Retry-After only when the collector exposes it.
          'access-control-expose-headers': 'retry-after',
          'retry-after': '3',
        },
        body: JSON.stringify({ message: 'The events could not be stored; send them again.' }),
      });
    });
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await loaded(page);
    await track(page, 'first', 'second');
    await until(
      async () => refusedAt.length,
      (refusals) => refusals === 2,
    );
    // Queued while the tracker waits: it goes with the third try, and once it is listed, so
    // would be a second copy of what the second try had.
    await track(page, 'third');

    const after = await until(
      () => stored(workspace),
      (s) => customNames(s).includes('third'),
    );
    expect(customNames(after).sort()).toEqual(['first', 'second', 'third']);
    expect(after.views.map((view) => new URL(view.url).pathname)).toEqual(['/']);

    // Each try after a 503 came a Retry-After (3 s, longer than the tracker's own first
    // waits) later, and an event sent more than once was the same each time: id and time.
    expect(refusedAt).toHaveLength(2);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    refusedAt.forEach((at, index) => {
      expect((sent[index + 1] as Sent).at - at).toBeGreaterThanOrEqual(3000);
    });
    const tries = sentEvents(sent).filter((event) => event.name === 'first');
    expect(tries.length).toBeGreaterThanOrEqual(2);
    expect(tries[0]?.id).toMatch(UUID);
    expect(tries).toEqual(tries.map(() => tries[0]));
    await context.close();
  });

  it('keeps what it could not send when the page is left and the tab closed; the next page load of the site sends it', async () => {
    const collector = await overloadedCollector();
    const { workspace, url } = await site(collector.url);
    const context = await browser.newContext();
    const sent = collected(context);
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await loaded(page);
    const trackedAt = Date.now();
    await track(page, 'while-offline');
    await until(
      async () => sentEvents(sent),
      (events) => events.some((event) => event.name === 'while-offline'),
    );
    // Left for a page without the snippet, then closed: the beacons are refused too.
    await page.goto(`${url}/plain`);
    await page.close({ runBeforeUnload: true });
    await sleep(1500);
    expect(await stored(workspace)).toEqual({ views: [], events: [] });

    collector.state.refusing = false;
    const reopenedAt = Date.now();
    const next = await context.newPage();
    await next.goto(`${url}/next`);
    const after = await until(
      () => stored(workspace),
      (s) => customNames(s).includes('while-offline') && s.views.length >= 2,
    );
    expect(customNames(after)).toEqual(['while-offline']);
    expect(after.views.map((view) => new URL(view.url).pathname)).toEqual(['/', '/next']);
    // Sent by the new page with the id and time it had from the first: it is stored as
    // happening when it did, before that page was opened.
    const [first] = sentEvents(sent).filter((event) => event.name === 'while-offline');
    const again = sentEvents(sent.filter((request) => request.at >= reopenedAt));
    expect(again).toContainEqual(first);
    const event = after.events.find((e) => e.name === 'while-offline');
    expect(Date.parse(event?.triggered_at as string)).toBeGreaterThanOrEqual(trackedAt);
    expect(Date.parse(event?.triggered_at as string)).toBeLessThan(reopenedAt);
    await context.close();
  });

  it('never sends again a batch the collector refused (400)', async () => {
    const { workspace, url } = await site();
    const context = await browser.newContext();
    const sent = collected(context);
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await loaded(page);
    await until(
      () => stored(workspace),
      (s) => s.views.length === 1,
    );
    // A custom event's name may have 255 characters: the collector refuses the request.
    const tooLong = 'x'.repeat(300);
    const refused = page.waitForResponse(
      (response) => response.url().endsWith('/t/collect') && response.status() === 400,
    );
    await track(page, tooLong);
    await refused;
    await sleep(4500); // retries would have come after 1 to 2 s, then 2 to 4 s more
    await track(page, 'after');
    await page.goto(`${url}/next`); // the next page load sends what is kept
    await loaded(page);
    await look(page);
    await page.close({ runBeforeUnload: true });

    const after = await until(
      () => stored(workspace),
      (s) => customNames(s).includes('after') && s.views.length >= 2,
    );
    expect(customNames(after)).toEqual(['after']);
    const withTooLong = sent.filter((request) => request.events.some((e) => e.name === tooLong));
    expect(withTooLong).toHaveLength(1);
    await context.close();
  });

  it('never sends again what an unlinked script sent (410)', async () => {
    const { workspace, url } = await site();
    const context = await browser.newContext();
    const sent = collected(context);
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await loaded(page);
    await until(
      () => stored(workspace),
      (s) => s.views.length === 1,
    );
    await api('POST', `/v1/workspaces/${workspace.uuid}/unlink`);
    const gone = page.waitForResponse(
      (response) => response.url().endsWith('/t/collect') && response.status() === 410,
    );
    await track(page, 'after-unlink');
    await gone;
    await sleep(4500); // retries would have come after 1 to 2 s, then 2 to 4 s more
    await page.close({ runBeforeUnload: true }); // and the beacon of the page left
    await sleep(500);
    const withIt = sent.filter((request) => request.events.some((e) => e.name === 'after-unlink'));
    expect(withIt).toHaveLength(1);
    await context.close();
  });

  it('keeps the newest 100 events while the collector cannot be reached, and sends them once it can', async () => {
    const { workspace, url } = await site();
    const context = await browser.newContext();
    const sent = collected(context);
    await context.route('**/t/collect', (route) => route.abort('internetdisconnected'));
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await loaded(page);
    // The page view is queued (and refused) first: it is the oldest event.
    await until(
      async () => sentEvents(sent),
      (events) => events.some((event) => event.type === 'pageview'),
    );
    const names = Array.from({ length: 130 }, (_, index) => `event-${index + 1}`);
    await track(page, ...names);
    for (const request of sent) expect(request.events.length).toBeLessThanOrEqual(50);
    await context.unroute('**/t/collect');

    const after = await until(
      () => stored(workspace),
      (s) => customNames(s).length >= 100,
      60_000,
    );
    await look(page); // more, had more been kept, would be in by now
    const final = await stored(workspace);
    expect(final.events.length).toBe(after.events.length);
    // The newest 100 of what the page queued: the page view and the first 30 events made room.
    expect(customNames(final).sort()).toEqual(names.slice(-100).sort());
    expect(final.views).toEqual([]);
    await context.close();
  });
});
