import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink } from '../../src/auth/links.js';
import { type Dashboard, look, startDashboard } from './harness.js';

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
});
afterAll(() => d.close());

describe('the dashboard: first run, sign-in and sign-out', () => {
  it('serves the dashboard at / with index.html uncached and hashed assets cached for a year', async () => {
    const page = await fetch(`${d.t.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${d.t.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${d.t.url}/assets/missing-123.js`)).status).toBe(404);
    // The API keeps its JSON 404 outside the dashboard's paths.
    expect((await fetch(`${d.t.url}/v1/nothing-here`)).status).toBe(404);
  });

  it('creates the first account from the setup link, then offers a workspace or demo data', async () => {
    const secret = await createLink(d.t.database.db, 'setup', null);
    const context = await d.newContext();
    const page = await context.newPage();
    await page.goto(`/setup/${secret}`);
    await page.getByRole('heading', { name: 'Create the first account' }).waitFor();
    await look(page, 'setup');
    await page.getByRole('textbox', { name: 'Email' }).fill('founder@example.com');
    await page.getByRole('textbox', { name: 'Name' }).fill('Fran Founder');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Welcome to Footfall' }).waitFor();
    await look(page, 'welcome');
    await page
      .getByRole('textbox', { name: "Your website's address" })
      .fill('https://www.founder.example');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Add this snippet to your site' }).waitFor();
    expect(await page.locator('pre code').textContent()).toContain('<script');
    // The link is single-use.
    await page.goto(`/setup/${secret}`);
    await page.getByRole('heading', { name: 'This setup link has been used' }).waitFor();
    await context.close();
  });

  it('signs in, shows the signed-in frame, signs out; a wrong password says so', async () => {
    const { who, page } = await d.signedIn('sam@example.com');
    // No workspace yet: the welcome page.
    await page.getByRole('heading', { name: 'Welcome to Footfall' }).waitFor();
    const created = await who.api('POST', '/v1/workspaces', { url: 'https://sam.example' });
    const uuid = (created.body as { data: { uuid: string } }).data.uuid;
    await page.goto('/');
    await page.waitForURL(new RegExp(`/w/${uuid}`));
    const nav = page.getByRole('navigation', { name: 'Sections' });
    for (const name of [
      'Overview',
      'Organisations',
      'Sessions',
      'Segments',
      'Contacts',
      'Settings',
    ]) {
      await expect.poll(() => nav.getByRole('link', { name }).count()).toBe(1);
    }
    await expect
      .poll(() => page.getByRole('combobox', { name: 'Workspace' }).inputValue())
      .toBe(uuid);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await look(page, 'sign-in');
    // Signed out for real: the dashboard sends the browser back to sign-in.
    await page.goto(`/w/${uuid}/organisations`);
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByRole('textbox', { name: 'Email' }).fill(who.email);
    await page.getByRole('textbox', { name: 'Password' }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('That email and password do not match an account.');
    await page.getByRole('textbox', { name: 'Password' }).fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back where the person was going.
    await page.waitForURL(new RegExp(`/w/${uuid}/organisations`));
  });

  it('loads demo data into a workspace of its own with one click', async () => {
    const { who, page } = await d.signedIn('demo-clicker@example.com');
    await page.getByRole('heading', { name: 'Welcome to Footfall' }).waitFor();
    await page.getByRole('button', { name: 'Load demo data' }).click();
    await page.waitForURL(/\/w\/[0-9a-f-]{36}/);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const workspaces = (await who.api('GET', '/v1/workspaces')).body.data;
    expect(workspaces).toHaveLength(1);
    expect(page.url()).toContain(workspaces[0].uuid);
    await expect
      .poll(() => page.getByRole('combobox', { name: 'Workspace' }).inputValue())
      .toBe(workspaces[0].uuid);
    // The demo's organisations are in the lead feed.
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Organisations' })
      .click();
    await page.getByRole('status').filter({ hasText: '32 organisations' }).waitFor();
  });

  it('lets a reset link choose a new password', async () => {
    const { who } = await d.signedIn('forgetful@example.com');
    const secret = await createLink(d.t.database.db, 'reset', who.id);
    const context = await d.newContext();
    const page = await context.newPage();
    await page.goto(`/reset/${secret}`);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await look(page, 'reset');
    await page.getByLabel('New password').fill('a brand new long password');
    await page.getByRole('button', { name: 'Save password' }).click();
    await page
      .getByRole('button', { name: 'Sign out' })
      .or(page.getByRole('heading', { name: 'Welcome to Footfall' }))
      .first()
      .waitFor();
    const signIn = await fetch(`${d.t.url}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'forgetful@example.com',
        password: 'a brand new long password',
      }),
    });
    expect(signIn.status).toBe(204);
    await context.close();
  });
});
