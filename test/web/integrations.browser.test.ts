import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/accounts/store.js';
import type { Person } from '../accounts/helpers.js';
import { visitYesterday } from '../helpers/collect.js';
import { startHubSpotStandIn } from '../helpers/crm/hubspot.js';
import { startPipedriveStandIn } from '../helpers/crm/pipedrive.js';
import { startReceiver } from '../helpers/receiver.js';
import { type Dashboard, look, startDashboard } from './harness.js';

// Settings → Integrations in Chromium against the real server, with the HubSpot and
// Pipedrive stand-ins of the API tests as the CRMs: what an admin sees while connecting,
// syncing, failing and disconnecting, and the Zapier hooks.

const SITE = 'https://www.integrations.example';
let d: Dashboard;
let hubspot: Awaited<ReturnType<typeof startHubSpotStandIn>>;
let pipedrive: Awaited<ReturnType<typeof startPipedriveStandIn>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let who: Person;
let page: Page;
let workspace: { uuid: string; tracking_script_id: string };

beforeAll(async () => {
  [hubspot, pipedrive, receiver] = await Promise.all([
    startHubSpotStandIn(),
    startPipedriveStandIn(),
    startReceiver(),
  ]);
  d = await startDashboard({ HUBSPOT_API_URL: hubspot.url, PIPEDRIVE_API_URL: pipedrive.url });
  ({ who, page } = await d.signedIn('admin@integrations.example'));
  workspace = (await who.api('POST', '/v1/workspaces', { url: SITE })).body.data;
  page.on('dialog', (dialog) => void dialog.accept());
  for (const email of ['ann@crm-one.example', 'bob@crm-two.example']) {
    await visitYesterday(d.t.url, workspace.tracking_script_id, SITE, email, ['/pricing']);
  }
});
afterAll(async () => {
  await d.close();
  await Promise.all([hubspot.close(), pipedrive.close(), receiver.close()]);
});

describe('the dashboard: Settings → Integrations', () => {
  it('connects HubSpot, syncs with progress, shows a refused token, and disconnects', async () => {
    await page.goto(`/w/${workspace.uuid}/settings#integrations`);
    const section = page.getByRole('region', { name: 'Integrations' });
    const crm = section.getByRole('region', { name: 'HubSpot' });
    await crm.getByText('Not connected').waitFor();
    await section.getByRole('region', { name: 'Pipedrive' }).getByText('Not connected').waitFor();

    // A wrong token: HubSpot's refusal, and still not connected.
    const token = crm.getByLabel('Private app access token');
    await token.fill('pat-not-this-one');
    await crm.getByRole('button', { name: 'Connect' }).click();
    await crm
      .getByRole('alert')
      .getByText(/HubSpot refused the token \(401\)/)
      .waitFor();
    await crm.getByText('Not connected').waitFor();

    await token.fill(hubspot.token);
    await crm.getByLabel('Minimum score').fill('0');
    await crm.getByRole('button', { name: 'Connect' }).click();
    await crm.getByText('Connected', { exact: true }).waitFor();
    // The token is never shown again.
    expect(await page.content()).not.toContain(hubspot.token);

    // A slow CRM, so that the backfill's progress can be seen.
    hubspot.latencyMs = 1500;
    await crm.getByRole('button', { name: 'Sync now' }).click();
    await crm.getByText('Syncing…').waitFor();
    const progress = crm.getByRole('progressbar', {
      name: /Syncing \d of 4 organisations and contacts/,
    });
    await progress.waitFor();
    expect(await progress.getAttribute('max')).toBe('4');
    await look(page, 'integrations-syncing');
    hubspot.latencyMs = 0;
    await crm.getByText('2 companies synced · 0 refused by HubSpot').waitFor({ timeout: 30_000 });
    await progress.waitFor({ state: 'detached' });
    await crm.getByText(/Last “Sync now”: 4 organisations and contacts,\s+finished/).waitFor();
    expect(hubspot.companiesByDomain().size).toBe(2);
    await look(page, 'integrations');

    // The token revoked in HubSpot: the next call fails and says so.
    hubspot.revoke();
    await crm.getByRole('button', { name: 'Sync now' }).click();
    await crm.getByText('Failed', { exact: true }).waitFor({ timeout: 30_000 });
    await crm.getByText(/HubSpot refused the token \(401\)/).waitFor();
    await look(page, 'integrations-failed');
    // The CRM's long answer wraps: nothing is wider than a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 860 });

    await crm.getByRole('button', { name: 'Disconnect' }).click();
    await crm.getByText('Not connected').waitFor();
    const listed = await who.api('GET', `/v1/workspaces/${workspace.uuid}/integrations`);
    expect(listed.body.data[0]).toMatchObject({ name: 'hubspot', status: 'not_connected' });
  });

  it('lists the Zapier hooks with their event, and removes one', async () => {
    const made = await who.api('POST', `/v1/workspaces/${workspace.uuid}/zapier/hooks`, {
      hookUrl: receiver.url,
      event: 'new_session',
      name: 'Sessions to Slack',
    });
    expect(made.status).toBe(201);
    // Subscribed by a Zap while the page was open: seen on the next load.
    await page.goto(`/w/${workspace.uuid}/settings#integrations`);
    await page.reload();
    const section = page.getByRole('region', { name: 'Integrations' });
    const item = section.getByRole('listitem').filter({ hasText: 'Sessions to Slack' });
    await item.getByText('New session').waitFor();
    await look(page, 'integrations-zapier');
    await item.getByRole('button', { name: /Remove/ }).click();
    await section.getByText(/No hooks yet/).waitFor();
    expect(
      (await who.api('GET', `/v1/workspaces/${workspace.uuid}/zapier/hooks`)).body.data,
    ).toEqual([]);
  });

  it('tells a member that integrations are for admins', async () => {
    const member = await d.signedIn('member@integrations.example');
    await addMember(d.t.database.db, workspace.uuid, member.who.id, 'member');
    await member.page.goto(`/w/${workspace.uuid}/settings#integrations`);
    const section = member.page.getByRole('region', { name: 'Integrations' });
    await section.getByText('Only admins can see and change integrations.').waitFor();
    expect(await section.getByRole('region', { name: 'HubSpot' }).count()).toBe(0);
  });
});
