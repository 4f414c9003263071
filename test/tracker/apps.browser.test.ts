import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { serveApps } from '../helpers/tracker-apps.js';

// The tracker on apps built the way real sites are: each records what a person did, and
// each app behaves the same, console included, with and without the snippet.
let t: TestApp;
let api: ReturnType<typeof client>;
let workspace: { uuid: string; tracking_script_snippet: string };
let browser: Browser;
let tracked: { url: string; close: () => void };
let plain: { url: string; close: () => void };

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
  // Loopback visitors are an organisation, so their sessions are listed by the API.
  await upsertIpRanges(t.database.db, [
    { network: '127.0.0.0/8', domain: 'acme.com', name: 'Acme' },
  ]);
  workspace = (await api('POST', '/v1/workspaces', { url: 'http://127.0.0.2' })).body.data;
  tracked = await serveApps(workspace.tracking_script_snippet);
  plain = await serveApps('');
  browser = await launchChromium({ backForwardCache: true });
});
afterAll(async () => {
  await browser?.close();
  tracked?.close();
  plain?.close();
  await t?.close();
});

type Scenario = (page: Page, base: string) => Promise<void>;

/** A person's pause, timed in the page, so it ends after the tracker's own timers. */
const pause = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 1000)));

/** Plays a scenario in a fresh browser profile; returns what the app showed and logged. */
async function play(base: string, scenario: Scenario) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const console: string[] = [];
  page.on('console', (message) => console.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => console.push(`pageerror: ${error.message}`));
  await scenario(page, base);
  // Expressions run in the page (the tests' TypeScript knows no DOM).
  const dom = await page.evaluate(
    "[location.pathname + location.hash, document.title, document.body.innerText].join(' | ')",
  );
  const visitor = (await page.evaluate("localStorage.getItem('ff_v')")) as string | null;
  await page.goto(`${base}/end`); // leaving: what is pending goes with pagehide
  await context.close();
  return { console, dom, visitor };
}

interface Recorded {
  views: string[];
  leaves: string[];
  forms: string[];
}

/** What was stored for one visitor, once it has stopped changing. */
async function recorded(base: string, visitor: string): Promise<Recorded> {
  const read = async () => {
    const rows = await t.database.db
      .selectFrom('events')
      .innerJoin('sessions', (join) =>
        join
          .onRef('sessions.id', '=', 'events.session_id')
          .onRef('sessions.workspace_id', '=', 'events.workspace_id'),
      )
      .select(['events.type', 'events.url', 'events.data', 'events.ts'])
      .where('sessions.visitor_id', '=', visitor)
      .orderBy('events.ts')
      .execute();
    const path = (url: string) => url.replace(base, '');
    const of = (type: string) => rows.filter((row) => row.type === type);
    return {
      views: of('pageview').map((row) => `${path(row.url)} "${row.data.title}"`),
      leaves: of('page_leave').map((row) => path(row.url)),
      forms: rows
        .filter((row) => row.type.startsWith('form_'))
        .map((row) => {
          const fields = (row.data.fields as { name: string; value: string }[])
            .map((field) => `${field.name}=${field.value}`)
            .join(',');
          return `${row.type} ${path(row.url)} ${row.data.form_id} ${fields}`;
        }),
    };
  };
  let last = '';
  for (let i = 0; i < 60; i++) {
    const now = await read();
    const text = JSON.stringify(now);
    if (text === last && now.views.length > 0 && now.leaves.length >= now.views.length) return now;
    last = text;
    await sleep(400);
  }
  return read();
}

/** Plays the scenario with and without the snippet; the app must not tell the difference. */
async function check(
  scenario: Scenario,
): Promise<Recorded & { console: string[]; visitor: string }> {
  const withTracker = await play(tracked.url, scenario);
  const without = await play(plain.url, scenario);
  expect(withTracker.console).toEqual(without.console);
  expect(withTracker.dom).toEqual(without.dom);
  expect(without.visitor).toBeNull();
  expect(withTracker.visitor).toBeTruthy();
  const stored = await recorded(tracked.url, withTracker.visitor as string);
  return { ...stored, console: withTracker.console, visitor: withTracker.visitor as string };
}

/**
 * The page's own record of its pageshow events, and its navigation entry's type: a page
 * restored from the cache keeps its first load's `navigate`, a reloaded one says back_forward.
 */
const restoredFromCache = async (page: Page) =>
  (await page.evaluate(
    "document.getElementById('shows').innerText + ' | ' + performance.getEntriesByType('navigation')[0].type",
  )) as string;

const link = (page: Page, name: string) => page.getByRole('link', { name, exact: true }).click();

/** Through a hash router's filters, then back to a route reached directly with a token. */
const hashRoutes =
  (path: string): Scenario =>
  async (page, base) => {
    await page.goto(`${base}${path}`);
    await pause(page);
    for (const name of ['Active', 'Completed', 'All']) {
      await link(page, name);
      await pause(page);
    }
    await page.goto(`${base}/end`);
    await page.goto(`${base}${path}#/active?access_token=HASH-SECRET&page=2`);
    await pause(page);
  };

/** One visitor's views as the sessions API shows them (path, seconds), once all are in. */
async function viewTimes(base: string, visitor: string, count: number) {
  const today = new Date().toISOString().slice(0, 10);
  let views: { url: string; time_on_page: number }[] = [];
  for (let i = 0; i < 60; i++) {
    const { body } = await api('GET', `/v1/workspaces/${workspace.uuid}/sessions?date=${today}`);
    const session = body.data.find((s: { visitor_uuid: string }) => s.visitor_uuid === visitor);
    views = session?.views ?? [];
    // The last view's time comes with its page_leave, sent as the page is left.
    if (views.length >= count && (views.at(-1)?.time_on_page ?? 0) > 0) break;
    await sleep(400);
  }
  return views.map((view) => ({ path: view.url.replace(base, ''), seconds: view.time_on_page }));
}

/**
 * TodoMVC as a person uses it: lands (the first time its stylesheet is slow), adds a todo,
 * looks through the filters, reloads, stays a little. Notes when each address was asked for.
 */
const todoVisit =
  (path: string, began: Record<string, number[]>): Scenario =>
  async (page, base) => {
    const times: number[] = [];
    began[base] = times;
    times.push(Date.now());
    await page.goto(`${base}${path}`);
    await page.getByRole('textbox', { name: 'What needs to be done?' }).fill('Buy milk');
    await page.keyboard.press('Enter');
    for (const name of ['Active', 'Completed', 'All']) {
      await pause(page);
      times.push(Date.now());
      await link(page, name);
    }
    await pause(page);
    times.push(Date.now());
    await page.reload();
    await pause(page);
    await pause(page);
    times.push(Date.now());
    await page.goto(`${base}/end`);
  };

/** Each view's time on page against the time spent there, as "within 1 s" or both figures. */
function againstTimeSpent(
  views: { path: string; seconds: number }[],
  began: number[],
  starts: number[],
) {
  return views.map((view, index) => {
    const from = began[starts[index] as number] as number;
    const to = began[(starts[index + 1] ?? began.length - 1) as number] as number;
    const spent = (to - from) / 1000;
    const close = Math.abs(view.seconds - spent) <= 1;
    return `${view.path} ${close ? 'within 1 s' : `${view.seconds} s for ${spent.toFixed(1)} s`}`;
  });
}

describe('the tracker on real-world apps in Chromium', { timeout: 90_000 }, () => {
  it('records each history route once, with the title the router sets after pushState', async () => {
    const result = await check(async (page, base) => {
      await page.goto(`${base}/history/`);
      await pause(page);
      await link(page, 'One');
      await pause(page);
      await link(page, 'Two');
      await pause(page);
      await page.evaluate('history.back()');
      await pause(page);
    });
    expect(result.views).toEqual([
      '/history/ "Home"',
      '/history/one "One"',
      '/history/two "Two"',
      '/history/one "One"',
    ]);
    // Each page's time is reported with its own address.
    expect(result.leaves).toEqual(['/history/', '/history/one', '/history/two', '/history/one']);
    expect(result.forms).toEqual([]);
  });

  it('records nothing for a navigation a guard undoes, and no abandon for the form then saved', async () => {
    const result = await check(async (page, base) => {
      await page.goto(`${base}/guard/list`);
      await pause(page);
      await link(page, 'Edit');
      await pause(page);
      await page.fill('input[name=item_title]', 'Quarterly report');
      await page.evaluate('history.back()'); // blocked: unsaved changes
      await pause(page);
      await page.getByRole('button', { name: 'Save' }).click();
      await pause(page);
      await link(page, 'List');
      await pause(page);
    });
    expect(result.console).toContain('log: blocked /guard/edit');
    expect(result.views).toEqual([
      '/guard/list "Items"',
      '/guard/edit "Edit item"',
      '/guard/list "Items"',
    ]);
    expect(result.leaves).toEqual(['/guard/list', '/guard/edit', '/guard/list']);
    expect(result.forms).toEqual(['form_submit /guard/edit item item_title=Quarterly report']);
  });

  it('records only the page a replace redirect lands on, on a click and on load', async () => {
    const clicked = await check(async (page, base) => {
      await page.goto(`${base}/redirect/`);
      await pause(page);
      await link(page, 'Account');
      await pause(page);
    });
    expect(clicked.views).toEqual(['/redirect/ "Home"', '/redirect/login "Log in"']);
    expect(clicked.leaves).toEqual(['/redirect/', '/redirect/login']);

    const loaded = await check(async (page, base) => {
      await page.goto(`${base}/redirect/account`);
      await pause(page);
    });
    expect(loaded.views).toEqual(['/redirect/login "Log in"']);
    expect(loaded.leaves).toEqual(['/redirect/login']);
  });

  it('records a view for each page Back and Forward restore from the back-forward cache, and keeps pages cacheable', async () => {
    const restored: string[] = [];
    const result = await check(async (page, base) => {
      await page.goto(`${base}/cache/a`);
      await pause(page);
      await page.getByRole('link', { name: 'To B' }).click();
      await page.waitForURL('**/cache/b');
      await pause(page);
      // A page restored from the cache fires no load event: wait for the commit only.
      await page.goBack({ waitUntil: 'commit' });
      await pause(page);
      restored.push(await restoredFromCache(page));
      await page.goForward({ waitUntil: 'commit' });
      await pause(page);
      restored.push(await restoredFromCache(page));
    });
    // The same with and without the snippet: both pages came back from the cache both times.
    expect(restored).toEqual(
      Array(4).fill('shown, persisted: false\nshown, persisted: true | navigate'),
    );
    expect(result.views).toEqual([
      '/cache/a "Page A"',
      '/cache/b "Page B"',
      '/cache/a "Page A"',
      '/cache/b "Page B"',
    ]);
    expect(result.leaves).toEqual(['/cache/a', '/cache/b', '/cache/a', '/cache/b']);
  });

  it('records a form sent by script as submitted, and neither it nor a form cleared by reset as abandoned', async () => {
    const result = await check(async (page, base) => {
      await page.goto(`${base}/reset/`);
      await page.fill('input[name=full_name]', 'Jane Doe');
      await page.fill('input[name=email]', 'jane@acme.com');
      await page.fill('input[name=topic]', 'Pricing');
      await page.getByRole('button', { name: 'Send' }).click();
      await pause(page);
      await page.fill('input[name=search]', 'widgets');
      await page.getByRole('button', { name: 'Clear' }).click();
      await pause(page);
    });
    expect(result.views).toEqual(['/reset/ "Enquiry"']);
    expect(result.forms).toEqual([
      'form_submit /reset/ enquiry full_name=Jane Doe,email=jane@acme.com,topic=Pricing',
    ]);
  });

  it('without the opt-in, records a hash-routed app as one page and never its fragment', async () => {
    const result = await check(hashRoutes('/hash/'));
    expect(result.views).toEqual(['/hash/ "Todos: All"', '/hash/ "Todos: Active"']);
    expect(result.leaves).toEqual(['/hash/', '/hash/']);
  });

  it('with data-hash-routing, records each hash route as a page, without credentials', async () => {
    const result = await check(hashRoutes('/hash-opt-in/'));
    expect(result.views).toEqual([
      '/hash-opt-in/ "Todos: All"',
      '/hash-opt-in/#/active "Todos: Active"',
      '/hash-opt-in/#/completed "Todos: Completed"',
      '/hash-opt-in/ "Todos: All"',
      '/hash-opt-in/#/active?page=2 "Todos: Active"',
    ]);
    expect(result.leaves).toEqual([
      '/hash-opt-in/',
      '/hash-opt-in/#/active',
      '/hash-opt-in/#/completed',
      '/hash-opt-in/',
      '/hash-opt-in/#/active?page=2',
    ]);
  });

  it('times each view of a hash-routed app to within a second of the time spent, with and without the opt-in', async () => {
    const began: Record<string, number[]> = {};
    const withoutOptIn = await check(todoVisit('/todos/', began));
    const mark = began[tracked.url] as number[];
    // Without the opt-in the app is one page, seen twice: landed on, then reloaded.
    const landed = await viewTimes(tracked.url, withoutOptIn.visitor, 2);
    expect(againstTimeSpent(landed, mark, [0, 4])).toEqual([
      '/todos/ within 1 s',
      '/todos/ within 1 s',
    ]);

    const withOptIn = await check(todoVisit('/todos-opt-in/', began));
    const routes = await viewTimes(tracked.url, withOptIn.visitor, 5);
    expect(againstTimeSpent(routes, began[tracked.url] as number[], [0, 1, 2, 3, 4])).toEqual([
      '/todos-opt-in/ within 1 s',
      '/todos-opt-in/#/active within 1 s',
      '/todos-opt-in/#/completed within 1 s',
      '/todos-opt-in/ within 1 s',
      '/todos-opt-in/ within 1 s',
    ]);
  }, 180_000); // four visits of some ten seconds each, with and without the snippet

  it('never records a one-time code or a card expiry', async () => {
    const result = await check(async (page, base) => {
      await page.goto(`${base}/verify/`);
      await page.fill('input[name=email]', 'jane@acme.com');
      await page.fill('input[name=code]', '482913');
      await page.fill('input[name=valid_thru]', '09/29');
      await page.fill('input[name=cc_exp]', '10/30');
      await Promise.all([
        page.waitForURL('**/verify/done'),
        page.getByRole('button', { name: 'Verify' }).click(),
      ]);
    });
    expect(result.views).toEqual(['/verify/ "Verify"']);
    expect(result.forms).toEqual(['form_submit /verify/ verify email=jane@acme.com']);
  });
});
