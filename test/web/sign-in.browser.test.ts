import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink } from '../../src/auth/links.js';
import { cookieClient, cookiesOf, PASSWORD, person } from '../accounts/helpers.js';
import { client } from '../helpers/app.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';
import { type Dashboard, look, startDashboard } from './harness.js';

// This server sends e-mail, as "Forgot password?" needs.
let d: Dashboard;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  d = await startDashboard({ SMTP_URL: smtp.url });
});
afterAll(async () => {
  await d.close();
  await smtp.close();
});

/** Signs in through the API, as another browser of the same person would. */
async function otherBrowser(email: string, password: string) {
  const answer = await client(d.t.url)('POST', '/auth/sign-in', { email, password });
  expect(answer.status).toBe(204);
  return cookieClient(d.t.url, cookiesOf(answer));
}

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
    // The demo's organisations are in the lead feed (one of them a customer, left out).
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Organisations' })
      .click();
    await page.getByRole('status').filter({ hasText: '31 organisations' }).waitFor();
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

  it('"Forgot password?" mails a link that chooses a new password; tokens from before end', async () => {
    const who = await person(d.t, 'lost@example.com');
    const context = await d.newContext();
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    await look(page, 'forgot');
    await page.getByRole('textbox', { name: 'Email' }).fill('lost@example.com');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    const sent = page.getByRole('status').filter({ hasText: 'Check your inbox.' });
    await sent.waitFor();
    expect(await sent.textContent()).toContain('a link to choose a new password');
    await look(page, 'forgot-sent');

    await until(() => smtp.messages.length > 0);
    const mail = smtp.messages.find((m) => m.subject === 'Choose a new password for Footfall');
    const link = new RegExp(`${d.t.url}/reset/[\\w-]+`).exec(mail?.text ?? '')?.[0];
    expect(link, mail?.text).toBeDefined();
    await page.goto(link ?? '');
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password').fill('found it again, new password');
    await page.getByRole('button', { name: 'Save password' }).click();
    await page.getByRole('heading', { name: 'Welcome to Footfall' }).waitFor();

    expect((await who.api('GET', '/v1/me')).status).toBe(401);
    expect((await who.browser('GET', '/v1/me')).status).toBe(401);
    await otherBrowser('lost@example.com', 'found it again, new password');
    await context.close();
  });

  it('Settings → Account says what a password change ends, then changes it', async () => {
    const { who, page } = await d.signedIn('pat@example.com');
    const space = (await who.api('POST', '/v1/workspaces', { url: 'https://pat.example' })).body
      .data;
    const laptop = await otherBrowser('pat@example.com', PASSWORD);
    await page.goto(`/w/${space.uuid}/settings`);
    const account = page.getByRole('region', { name: 'Account' });
    await account.getByRole('heading', { name: 'Change password' }).waitFor();
    // Said before the change, and tied to the button that makes it.
    const change = account.getByRole('button', { name: 'Change password' });
    await expect
      .poll(() => change.getAttribute('aria-describedby'))
      .toBe('password-change-effects');
    expect(await account.locator('#password-change-effects').textContent()).toMatch(
      /signs you out of every other browser and ends all your API tokens/,
    );
    await account.scrollIntoViewIfNeeded();
    await look(page, 'settings-account');

    await account.getByLabel('Current password').fill('not my password at all');
    await account.getByLabel('New password').fill('pat has a new password');
    await change.click();
    await expect
      .poll(() => account.getByRole('alert').textContent())
      .toBe('The current password is wrong.');
    expect((await who.api('GET', '/v1/me')).status).toBe(200);

    await account.getByLabel('Current password').fill(PASSWORD);
    await account.getByLabel('New password').fill('pat has a new password');
    await change.click();
    await account.getByRole('status').filter({ hasText: 'Password changed.' }).waitFor();
    // The token and the other browser have ended; this one is still signed in.
    expect((await who.api('GET', '/v1/me')).status).toBe(401);
    expect((await laptop('GET', '/v1/me')).status).toBe(401);
    await page.getByRole('region', { name: 'API tokens' }).getByText('No tokens yet.').waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await otherBrowser('pat@example.com', 'pat has a new password');
  });

  it('an invite for an address that has an account: its password on the page does not join; signing in comes back and joins', async () => {
    const { who: owner } = await d.signedIn('owner.inv@example.com');
    const space = (await owner.api('POST', '/v1/workspaces', { url: 'https://inv.example' })).body
      .data;
    const ivan = await person(d.t, 'ivan@example.com');
    const invited = await owner.api('POST', `/v1/workspaces/${space.uuid}/users/invite`, {
      email: 'ivan@example.com',
    });
    const link: string = invited.body.data.invite_link;

    const context = await d.newContext();
    const page = await context.newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: `Join ${space.name}` }).waitFor();
    await page.getByText('Already have a Footfall account for ivan@example.com?').waitFor();
    await look(page, 'invite-signed-out');
    // Ivan's own password, typed into the new-account form, is never checked.
    await page.getByLabel('Password').fill(ivan.password);
    await page.getByRole('button', { name: 'Join workspace' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe(
        'ivan@example.com already has an account: sign in as ivan@example.com, and you will come back here to join.',
      );
    expect((await ivan.api('GET', `/v1/workspaces/${space.uuid}`)).status).toBe(404);
    await look(page, 'invite-account-exists');

    await page.getByRole('link', { name: 'Sign in as ivan@example.com' }).click();
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByRole('textbox', { name: 'Email' }).fill('ivan@example.com');
    await page.getByRole('textbox', { name: 'Password' }).fill(ivan.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(link);
    await page.getByRole('button', { name: 'Join workspace' }).click();
    await page.waitForURL(new RegExp(`/w/${space.uuid}`));
    expect((await ivan.api('GET', `/v1/workspaces/${space.uuid}`)).status).toBe(200);
    await context.close();
  });
});

describe('the sign-in page of a server without e-mail', () => {
  let plain: Dashboard;
  beforeAll(async () => {
    plain = await startDashboard();
  });
  afterAll(() => plain.close());

  it('has no "Forgot password?" link; it says to ask for a reset link', async () => {
    const context = await plain.newContext();
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByText('Forgot your password? Ask an owner of your workspace').waitFor();
    expect(await page.getByRole('link', { name: 'Forgot password?' }).count()).toBe(0);
    expect(await page.getByRole('code').textContent()).toBe(
      'npx --no footfall users reset-link --email you@example.com',
    );
    await context.close();
  });
});
