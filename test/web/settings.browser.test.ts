import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '../accounts/helpers.js';
import { client } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { type Dashboard, DESKTOP, look, startDashboard } from './harness.js';

let d: Dashboard;
let who: Person;
let page: Page;
let workspace: { uuid: string; tracking_script_id: string; name: string };

beforeAll(async () => {
  d = await startDashboard({ INGEST_TALLY_MS: '50' });
  ({ who, page } = await d.signedIn('admin@example.com'));
  workspace = (await who.api('POST', '/v1/workspaces', { url: 'https://www.settings.example' }))
    .body.data;
  page.on('dialog', (dialog) => void dialog.accept());
});
afterAll(() => d.close());

describe('the dashboard: Settings', () => {
  it('shows the snippet and the installation moving from waiting to the last event received', async () => {
    await page.goto(`/w/${workspace.uuid}/settings`);
    for (const name of [
      'Tracking',
      'Team',
      'API tokens',
      'Webhooks',
      'Notifications',
      'Custom fields',
    ]) {
      await page.getByRole('heading', { name, level: 2 }).waitFor();
    }
    const tracking = page.getByRole('region', { name: 'Tracking' });
    // The snippet, with this workspace's script in it.
    await tracking.getByText(`/t/${workspace.tracking_script_id}.js`).waitFor();
    await tracking.getByRole('button', { name: 'Copy snippet' }).waitFor();
    await tracking.getByText(/^Waiting for the first event/).waitFor();
    await look(page, 'settings');

    // A visit through the collector, as the script on the site sends it.
    const sent = await collector(d.t.url)(
      visit(workspace.tracking_script_id, [
        pageview('https://www.settings.example/pricing', Date.now()),
      ]),
    );
    expect(sent.status).toBe(202);
    // No reload: the page polls.
    await tracking.getByText(/^Last event received/).waitFor({ timeout: 20_000 });
  });

  it('switching click tracking off changes the served script', async () => {
    const script = async () =>
      (await fetch(`${d.t.url}/t/${workspace.tracking_script_id}.js`)).text();
    expect(await script()).toContain('"clicks":true');
    await page.goto(`/w/${workspace.uuid}/settings`);
    const clicks = page.getByRole('switch', { name: 'Click tracking' });
    await expect.poll(() => clicks.getAttribute('aria-checked')).toBe('true');
    await clicks.click();
    await expect.poll(() => clicks.getAttribute('aria-checked')).toBe('false');
    await expect.poll(script, { timeout: 10_000 }).toContain('"clicks":false');
    const features = (await who.api('GET', `/v1/workspaces/${workspace.uuid}/tracker-features`))
      .body.data;
    expect(features).toEqual({
      form_tracking: true,
      click_tracking: false,
      download_tracking: true,
    });
  });

  it('invites a member who signs up through the link and sees the workspace', async () => {
    await page.goto(`/w/${workspace.uuid}/settings`);
    const team = page.getByRole('region', { name: 'Team' });
    await team.getByRole('textbox', { name: 'Invite by email' }).fill('newbie@example.com');
    await team.getByRole('button', { name: 'Send invite' }).click();
    const shown = team.getByRole('status').filter({ hasText: 'newbie@example.com' });
    await shown.waitFor();
    const link = (await shown.getByRole('code').textContent()) ?? '';
    expect(link).toMatch(/\/invite\/[\w-]+$/);
    // The open invite is listed.
    await team.getByRole('cell', { name: 'newbie@example.com' }).waitFor();

    const other = await d.browser.newContext({ baseURL: d.t.url, viewport: DESKTOP });
    const invitee = await other.newPage();
    await invitee.goto(link);
    await invitee.getByRole('heading', { name: `Join ${workspace.name}` }).waitFor();
    await look(invitee, 'invite');
    await invitee.getByRole('textbox', { name: 'Name' }).fill('New Bie');
    await invitee.getByLabel('Password').fill('a fine long password');
    await invitee.getByRole('button', { name: 'Join workspace' }).click();
    await invitee.waitForURL(new RegExp(`/w/${workspace.uuid}`));
    expect(await invitee.getByRole('combobox', { name: 'Workspace' }).inputValue()).toBe(
      workspace.uuid,
    );
    await invitee.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await other.close();
    const members = (await who.api('GET', `/v1/workspaces/${workspace.uuid}/users`)).body.data;
    expect(members.map((m: { email: string }) => m.email).sort()).toEqual([
      'admin@example.com',
      'newbie@example.com',
    ]);
  });

  it('creates a token shown once that works, then revokes it', async () => {
    await page.goto(`/w/${workspace.uuid}/settings`);
    const tokens = page.getByRole('region', { name: 'API tokens' });
    await tokens.getByRole('textbox', { name: 'Token name' }).fill('Zapier');
    await tokens.getByRole('combobox', { name: 'Expires' }).selectOption({ label: 'in 30 days' });
    await tokens.getByRole('button', { name: 'Create token' }).click();
    const secret = tokens.getByRole('status').filter({ hasText: 'you will not see it again' });
    const token = (await secret.getByRole('code').textContent()) ?? '';
    expect(token.split('.')).toHaveLength(3);
    expect((await client(d.t.url, token)('GET', '/v1/me')).body.data.email).toBe(
      'admin@example.com',
    );
    await tokens.getByRole('cell', { name: 'Zapier', exact: true }).waitFor();
    await tokens.getByRole('button', { name: 'Revoke Zapier' }).click();
    await expect
      .poll(() => tokens.getByRole('cell', { name: 'Zapier', exact: true }).count())
      .toBe(0);
    expect((await client(d.t.url, token)('GET', '/v1/me')).status).toBe(401);
  });
});
