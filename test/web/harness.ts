import { mkdir } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { type Person, person } from '../accounts/helpers.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';

/**
 * The dashboard in real Chromium against the real server (which serves dist/web, built by
 * the test run's global setup when web/ changed). Pages are found by role and name
 * (contract §14), never by CSS.
 */
export interface Dashboard {
  t: TestApp;
  browser: Browser;
  /** A person with an account, and a browser context already signed in as them. */
  signedIn(email: string): Promise<{ who: Person; context: BrowserContext; page: Page }>;
  /** A browser context of no one yet (watched as signedIn's are). */
  newContext(): Promise<BrowserContext>;
  /** Closes everything; fails if a page threw an uncaught error or the server answered 5xx. */
  close(): Promise<void>;
}

export async function startDashboard(settings: Record<string, string> = {}): Promise<Dashboard> {
  const t = await startTestApp({ ALLOW_PRIVATE_WEBHOOKS: 'true', ...settings });
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  // What went wrong in a browser that no assertion of a test looked for.
  const problems: string[] = [];
  const newContext = async () => {
    const context = await browser.newContext({ baseURL: t.url, viewport: DESKTOP });
    // A page waited for is there at once on a quiet machine; beside a benchmark it may take
    // longer than Playwright's 30 s.
    context.setDefaultTimeout(60_000);
    context.on('weberror', (error) => problems.push(`uncaught: ${error.error().message}`));
    context.on('response', (response) => {
      if (response.status() >= 500) {
        const { pathname } = new URL(response.url());
        problems.push(`${response.status()} for ${response.request().method()} ${pathname}`);
      }
    });
    contexts.push(context);
    return context;
  };
  return {
    t,
    browser,
    newContext,
    async signedIn(email) {
      const who = await person(t, email);
      const context = await newContext();
      const page = await context.newPage();
      await page.goto('/sign-in');
      await page.getByRole('textbox', { name: 'Email' }).fill(email);
      await page.getByRole('textbox', { name: 'Password' }).fill(who.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page
        .getByRole('button', { name: 'Sign out' })
        .or(page.getByRole('heading', { name: /Welcome|New workspace/ }))
        .first()
        .waitFor();
      return { who, context, page };
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await t.close();
      expect(problems, 'uncaught errors in pages, or 5xx answers to the dashboard').toEqual([]);
    },
  };
}

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };
// SCREENSHOT_DIR puts them elsewhere, e.g. outside the working tree.
const SHOTS = process.env.SCREENSHOT_DIR
  ? pathToFileURL(`${process.env.SCREENSHOT_DIR.replace(/\/$/, '')}/`)
  : new URL('../../test-artifacts/screenshots/', import.meta.url);

/**
 * Looks at a page the way a reviewer must: a full-page screenshot at desktop and phone width
 * (kept in test-artifacts/screenshots/, which git ignores, or SCREENSHOT_DIR), and axe finding
 * no serious or critical accessibility violation at either width.
 */
export async function look(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  const before = page.viewportSize() ?? DESKTOP;
  for (const [width, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.waitForTimeout(150);
    await page.screenshot({
      path: new URL(`${name}-${width}.png`, SHOTS).pathname,
      fullPage: true,
    });
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      );
    expect(serious, `${name} at ${width} width`).toEqual([]);
  }
  await page.setViewportSize(before);
}
