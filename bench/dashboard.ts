// npm run bench (last part): the dashboard in Debian's Chromium over the benches' large
// workspace (10,000 organisations, 1,000,000 sessions): how long the Organisations page takes
// to show its first rows and the Overview its chart, from navigation start, for a returning
// visitor (assets in the browser's cache) and a first visit (empty cache). Targets: rows
// ≤ 1.5 s, chart ≤ 2 s (median of the runs). Needs `npm run build` (the dashboard's build).
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { DASHBOARD_DIR } from '../src/http/dashboard.js';
import { benchApi } from './lib/api.js';
import { seedLargeWorkspace } from './lib/dataset.js';

const ORGANISATIONS = Number(process.env.BENCH_ORGANISATIONS ?? 10_000);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const PASSWORD = 'bench password 123';

if (!existsSync(`${DASHBOARD_DIR}/index.html`)) {
  throw new Error('The dashboard is not built: run `npm run build` first.');
}
const { db, base, call, done } = await benchApi({ password: PASSWORD });
const ws = await seedLargeWorkspace(db, call, {
  organisations: ORGANISATIONS,
  sessions: SESSIONS,
});

const browser: Browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});

async function signedInContext() {
  const context = await browser.newContext({
    baseURL: base,
    viewport: { width: 1280, height: 860 },
  });
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByRole('textbox', { name: 'Email' }).fill('bench@example.com');
  await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return { context, page };
}

/** Milliseconds from navigation start until `ready` resolves on the page. */
async function timeTo(page: Page, path: string, ready: (page: Page) => Promise<unknown>) {
  const started = performance.now();
  await page.goto(path, { waitUntil: 'commit' });
  await ready(page);
  return performance.now() - started;
}

const firstRow = (page: Page) =>
  page.getByRole('table').getByRole('link').first().waitFor({ timeout: 60_000 });
const chart = (page: Page) =>
  page
    .getByRole('figure', { name: 'Visits per day' })
    .or(page.getByRole('img', { name: 'Visits per day' }))
    .first()
    .waitFor({ timeout: 60_000 });

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function measure(label: string, path: string, ready: (page: Page) => Promise<unknown>) {
  const warm: number[] = [];
  const cold: number[] = [];
  await timeTo(signedIn.page, path, ready); // fills the browser's cache
  for (let i = 0; i < RUNS; i++) {
    // A returning visitor: a new tab, assets from the cache, data from the server.
    const tab = await signedIn.context.newPage();
    warm.push(await timeTo(tab, path, ready));
    await tab.close();
  }
  for (let i = 0; i < RUNS; i++) {
    // A first visit: the same session cookie in a new browser profile, nothing cached.
    const context = await browser.newContext({ baseURL: base, storageState: session });
    cold.push(await timeTo(await context.newPage(), path, ready));
    await context.close();
  }
  console.log(
    `${label}: returning visitor median ${median(warm).toFixed(0)} ms (min ${Math.min(...warm).toFixed(0)}, max ${Math.max(...warm).toFixed(0)}); first visit median ${median(cold).toFixed(0)} ms (${RUNS} runs each)`,
  );
  return { warm: median(warm), cold: median(cold) };
}

// Signed in once (sign-in attempts are limited), the session reused by every profile.
const signedIn = await signedInContext();
const session = await signedIn.context.storageState();
const rows = await measure('Organisations, first rows', `/w/${ws}/organisations`, firstRow);
const overview = await measure('Overview, chart', `/w/${ws}`, chart);
console.log('');
console.log(
  `dashboard: Organisations first rows ${rows.warm.toFixed(0)} ms (first visit ${rows.cold.toFixed(0)}; target ≤ 1500), Overview chart ${overview.warm.toFixed(0)} ms (first visit ${overview.cold.toFixed(0)}; target ≤ 2000)`,
);
await browser.close();
await done();
