import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '../accounts/helpers.js';
import { client } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { startReceiver } from '../helpers/receiver.js';
import { type Dashboard, look, startDashboard } from './harness.js';

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
    // This server sends no e-mail: the invite is a link to pass on.
    await team.getByText(/This server sends no e-mail/).waitFor();
    await team.getByRole('button', { name: 'Create invite link' }).click();
    const shown = team.getByRole('status').filter({ hasText: 'newbie@example.com' });
    await shown.waitFor();
    const link = (await shown.getByRole('code').textContent()) ?? '';
    expect(link).toMatch(/\/invite\/[\w-]+$/);
    // The open invite is listed.
    await team.getByRole('cell', { name: 'newbie@example.com' }).waitFor();

    const other = await d.newContext();
    const invitee = await other.newPage();
    await invitee.goto(link);
    await invitee.getByRole('heading', { name: `Join ${workspace.name}` }).waitFor();
    await look(invitee, 'invite');
    await invitee.getByRole('textbox', { name: 'Name' }).fill('New Bie');
    await invitee.getByLabel('Password').fill('a fine long password');
    await invitee.getByRole('button', { name: 'Join workspace' }).click();
    await invitee.waitForURL(new RegExp(`/w/${workspace.uuid}`));
    await expect
      .poll(() => invitee.getByRole('combobox', { name: 'Workspace' }).inputValue())
      .toBe(workspace.uuid);
    await invitee.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await other.close();
    const members = (await who.api('GET', `/v1/workspaces/${workspace.uuid}/users`)).body.data;
    expect(members.map((m: { email: string }) => m.email).sort()).toEqual([
      'admin@example.com',
      'newbie@example.com',
    ]);

    // The new member in the list without a reload (open invites are looked at again every
    // 10 s): made an admin, then removed after confirming.
    const role = team.getByRole('combobox', { name: 'Role of newbie@example.com' });
    await role.waitFor({ timeout: 20_000 });
    expect(await role.inputValue()).toBe('member');
    await role.selectOption('Admin');
    const roleOf = async () =>
      (await who.api('GET', `/v1/workspaces/${workspace.uuid}/users`)).body.data.find(
        (m: { email: string }) => m.email === 'newbie@example.com',
      )?.role;
    await expect.poll(roleOf).toBe('admin');
    await team.getByRole('button', { name: 'Remove newbie@example.com' }).click();
    await expect.poll(roleOf).toBeUndefined();
    await expect.poll(() => role.count()).toBe(0);
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

  it('says when everything recent was dropped, and why', async () => {
    const elsewhere = (
      await who.api('POST', '/v1/workspaces', { url: 'https://www.dropped.example' })
    ).body.data;
    // A copied snippet on a site the workspace has not accepted.
    const sent = await collector(d.t.url)(
      visit(elsewhere.tracking_script_id, [pageview('https://copycat.example/', Date.now())]),
    );
    expect(sent.status).toBe(202);
    await expect
      .poll(
        async () =>
          (await who.api('GET', `/v1/workspaces/${elsewhere.uuid}/installation`)).body.data
            .dropped_24h.total,
      )
      .toBe(1);
    await page.goto(`/w/${elsewhere.uuid}/settings`);
    const tracking = page.getByRole('region', { name: 'Tracking' });
    await tracking.getByText(/^Last event received/).waitFor();
    await tracking
      .getByText(
        '1 event dropped in the last 24 hours: 1 from pages on a hostname you have not accepted.',
      )
      .waitFor();
    const warning = tracking.getByRole('alert');
    await warning.getByText(/Nothing your site sent in the last 24 hours was stored/).waitFor();
    expect(await warning.textContent()).toContain('accepted hostnames');
    await look(page, 'settings-dropped');
  });

  it('configures webhooks, alerts and custom fields, with tests and logs', async () => {
    const receiver = await startReceiver();
    try {
      await page.goto(`/w/${workspace.uuid}/settings`);

      // Webhooks: a target, a test ping that arrives, then sent again from the log.
      const hooks = page.getByRole('region', { name: 'Webhooks' });
      await hooks.getByRole('textbox', { name: 'Webhook URL' }).fill(receiver.url);
      await hooks.getByLabel('Signing secret').fill('a secret of sixteen+');
      await hooks.getByRole('checkbox', { name: /event\.tracked/ }).uncheck();
      await hooks.getByRole('button', { name: 'Save webhook' }).click();
      await hooks.getByRole('status').getByText('Saved.').waitFor();
      const saved = (await who.api('GET', '/radar/operator/v1/webhooks')).body.data[0].delivery;
      expect(saved.webhook_url).toBe(receiver.url);
      expect(saved.events).not.toContain('event.tracked');
      expect(JSON.stringify(saved)).not.toContain('a secret of sixteen+');
      await hooks.getByRole('button', { name: 'Send test' }).click();
      await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(1);
      const log = hooks.getByRole('region', { name: 'Webhook deliveries' });
      await log.getByRole('cell', { name: 'Delivered' }).first().waitFor({ timeout: 20_000 });
      await log
        .getByRole('button', { name: /^Redeliver/ })
        .first()
        .click();
      await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(2);
      await hooks.getByRole('combobox', { name: 'Show deliveries' }).selectOption('Failed');
      await hooks.getByText('Nothing sent yet.').waitFor();
      await hooks.getByRole('combobox', { name: 'Show deliveries' }).selectOption('All');

      // Notifications: a rule posting to the receiver, its switch, a test and its log.
      const alerts = page.getByRole('region', { name: 'Notifications' });
      await alerts.getByRole('textbox', { name: 'Alert name' }).fill('Pricing visits');
      await alerts.getByRole('combobox', { name: 'When' }).selectOption({
        label: 'An organisation views a page',
      });
      await alerts.getByRole('textbox', { name: 'URL contains' }).fill('/pricing');
      await alerts.getByRole('combobox', { name: 'Send by' }).selectOption('Webhook');
      await alerts.getByRole('textbox', { name: 'Receiver URL' }).fill(receiver.url);
      await alerts.getByLabel('Signing secret').fill('another sixteen chars');
      await alerts.getByRole('button', { name: 'Add alert' }).click();
      const rule = alerts.getByRole('switch', { name: 'Pricing visits' });
      await expect.poll(() => rule.getAttribute('aria-checked')).toBe('true');
      const rules = (await who.api('GET', `/v1/workspaces/${workspace.uuid}/notifications`)).body
        .data;
      expect(rules).toHaveLength(1);
      expect(rules[0]).toMatchObject({
        name: 'Pricing visits',
        trigger: 'page.visited',
        enabled: true,
        filter: { url_contains: '/pricing' },
        channel: { type: 'webhook', url: receiver.url },
      });
      await rule.click();
      await expect.poll(() => rule.getAttribute('aria-checked')).toBe('false');
      expect(
        (await who.api('GET', `/v1/workspaces/${workspace.uuid}/notifications`)).body.data[0]
          .enabled,
      ).toBe(false);
      await rule.click();
      await expect.poll(() => rule.getAttribute('aria-checked')).toBe('true');
      // Edited: another page, the secret left blank so the channel stays as it is.
      await alerts.getByRole('button', { name: 'Edit Pricing visits' }).click();
      const edit = alerts.getByRole('form', { name: 'Edit “Pricing visits”' });
      expect(await edit.getByRole('textbox', { name: 'Receiver URL' }).inputValue()).toBe(
        receiver.url,
      );
      await edit.getByRole('textbox', { name: 'URL contains' }).fill('/plans');
      await edit.getByRole('button', { name: 'Save alert' }).click();
      await alerts.getByText(/containing “\/plans”/).waitFor();
      expect(
        (await who.api('GET', `/v1/workspaces/${workspace.uuid}/notifications`)).body.data[0],
      ).toMatchObject({
        filter: { url_contains: '/plans' },
        channel: { type: 'webhook', url: receiver.url, secret_set: true },
      });
      await alerts.getByRole('button', { name: 'Send test of Pricing visits' }).click();
      await alerts
        .getByRole('region', { name: 'Deliveries of Pricing visits' })
        .getByRole('cell', { name: 'Test' })
        .waitFor({ timeout: 20_000 });

      // Custom fields: a select field with coloured options, then renamed with one more option.
      const fields = page.getByRole('region', { name: 'Custom fields' });
      await fields.getByRole('textbox', { name: 'Field name' }).fill('Tier');
      await fields.getByRole('combobox', { name: 'Field type' }).selectOption({
        label: 'One of a list',
      });
      for (const [i, label] of ['Gold', 'Silver'].entries()) {
        await fields.getByRole('button', { name: 'Add option' }).click();
        await fields.getByRole('textbox', { name: `Option ${i + 1}`, exact: true }).fill(label);
      }
      await fields.getByRole('button', { name: 'Add field' }).click();
      await fields.getByRole('cell', { name: 'Tier', exact: true }).waitFor();
      await fields.getByRole('button', { name: 'Edit Tier' }).click();
      const editor = fields.getByRole('form', { name: 'Edit “Tier”' });
      await editor.getByRole('textbox', { name: 'Name' }).fill('Account tier');
      await editor.getByRole('button', { name: 'Add option' }).click();
      await editor.getByRole('textbox', { name: 'Option 3', exact: true }).fill('Bronze');
      await editor.getByRole('button', { name: 'Save field' }).click();
      await fields.getByRole('cell', { name: 'Account tier', exact: true }).waitFor();
      const defined = (await who.api('GET', `/v1/workspaces/${workspace.uuid}/custom-fields`)).body
        .data;
      expect(
        defined.map(
          (f: { key: string; name: string; options: { key: string; label: string }[] }) => [
            f.key,
            f.name,
            f.options.map((o) => `${o.key}:${o.label}`),
          ],
        ),
      ).toEqual([['tier', 'Account tier', ['gold:Gold', 'silver:Silver', 'bronze:Bronze']]]);
      for (const label of ['Gold', 'Silver', 'Bronze']) {
        await fields.getByText(label, { exact: true }).waitFor();
      }
      await look(page, 'settings-data');
    } finally {
      await receiver.close();
    }
  });
});
