import { afterAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../helpers/smtp.js';
import { type Dashboard, look, startDashboard } from './harness.js';

// What the dashboard offers depends on how the server is set up: e-mail (SMTP_URL) for
// invites and alerts, and PUBLIC_URL for the address the snippet names.
const dashboards: Dashboard[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const d of dashboards) await d.close();
  for (const close of closers) await close();
});

async function settingsOf(settings: Record<string, string>, email: string) {
  const d = await startDashboard(settings);
  dashboards.push(d);
  const { who, page } = await d.signedIn(email);
  const workspace = (await who.api('POST', '/v1/workspaces', { url: 'https://www.setup.example' }))
    .body.data;
  await page.goto(`/w/${workspace.uuid}/settings`);
  return { d, page, workspace };
}

describe('the dashboard on a server without e-mail and PUBLIC_URL', () => {
  it('offers invite links and no e-mail alerts, and warns that the snippet names a private address', async () => {
    const { page, d } = await settingsOf({}, 'plain@example.com');
    const tracking = page.getByRole('region', { name: 'Tracking' });
    const warning = tracking.getByText(/an address only this machine or your own network reaches/);
    await warning.waitFor();
    // The address the snippet names is the one the dashboard was reached on: loopback here.
    expect(await warning.textContent()).toContain(`loads the script from ${d.t.url}`);
    expect(await warning.textContent()).toContain('Set PUBLIC_URL');

    const team = page.getByRole('region', { name: 'Team' });
    await team.getByRole('button', { name: 'Create invite link' }).waitFor();
    await team.getByText(/This server sends no e-mail \(SMTP_URL is not set\)/).waitFor();

    const alerts = page.getByRole('region', { name: 'Notifications' });
    const sendBy = alerts.getByRole('combobox', { name: 'Send by' });
    await expect
      .poll(() => sendBy.locator('option').allTextContents())
      .toEqual(['Slack', 'Webhook']);
    expect(await sendBy.inputValue()).toBe('slack');
    await alerts.getByText('E-mail is not offered: this server sends no e-mail').waitFor();
    await look(page, 'settings-without-mail');
  });
});

describe('the dashboard on a server with e-mail and PUBLIC_URL', () => {
  it('sends invites by e-mail, offers e-mail alerts, and does not warn about the snippet', async () => {
    const smtp = await startSmtpServer();
    closers.push(smtp.close);
    const { page, workspace } = await settingsOf(
      { SMTP_URL: smtp.url, PUBLIC_URL: 'https://footfall.example.com' },
      'mailing@example.com',
    );
    const tracking = page.getByRole('region', { name: 'Tracking' });
    await tracking
      .getByText(`https://footfall.example.com/t/${workspace.tracking_script_id}.js`)
      .waitFor();

    const alerts = page.getByRole('region', { name: 'Notifications' });
    const sendBy = alerts.getByRole('combobox', { name: 'Send by' });
    await expect
      .poll(() => sendBy.locator('option').allTextContents())
      .toEqual(['E-mail', 'Slack', 'Webhook']);
    expect(await sendBy.inputValue()).toBe('email');

    const team = page.getByRole('region', { name: 'Team' });
    await team.getByRole('textbox', { name: 'Invite by email' }).fill('colleague@example.com');
    await team.getByRole('button', { name: 'Send invite' }).click();
    await team
      .getByRole('status')
      .filter({ hasText: 'An invite link has been sent to colleague@example.com.' })
      .waitFor();
    await expect.poll(() => smtp.messages.map((m) => m.to)).toHaveLength(1);
    expect(await page.getByText(/an address only this machine/).count()).toBe(0);
    expect(await page.getByText(/This server sends no e-mail/).count()).toBe(0);
  });
});
