import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/accounts/store.js';
import type { Person } from '../accounts/helpers.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';
import { type Dashboard, look, startDashboard } from './harness.js';

let d: Dashboard;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let admin: Person;
let member: Person;
let page: Page;
let memberPage: Page;
let ws: string;
const day = (offset: number) =>
  new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
/** The lead feed's default range, as the API is asked for it. */
const RANGE = `date_from=${day(29)}&date_to=${day(0)}`;

interface Organisation {
  uuid: string;
  name: string;
  website: string;
  score: number;
  score_reasons: { reason: string; points: number }[];
  owner: { uuid: string; name: string; email: string } | null;
  status: string;
}

const leads = async (query: string): Promise<Organisation[]> =>
  (await admin.api('GET', `/v1/workspaces/${ws}/organisations?${RANGE}&size=25&${query}`)).body
    .data;

/** The organisation names in the lead feed, top to bottom. */
const namesOnScreen = (p: Page) =>
  p
    .getByRole('table', { name: /^Organisations/ })
    .getByRole('link')
    .allTextContents();

beforeAll(async () => {
  // A server that sends e-mail, so that alerts may go to an organisation's owner.
  smtp = await startSmtpServer();
  d = await startDashboard({ SMTP_URL: smtp.url });
  ({ who: admin, page } = await d.signedIn('owner@example.com'));
  ws = (await admin.api('POST', '/v1/workspaces/demo')).body.data.uuid;
  ({ who: member, page: memberPage } = await d.signedIn('member@example.com'));
  await addMember(d.t.database.db, ws, member.id, 'member');
  // The scoring job scores a new workspace in full within a few seconds.
  await until(async () => ((await leads('sort=-score'))[0]?.score ?? 0) > 0);
});
afterAll(async () => {
  await d.close();
  await smtp.close();
});

describe('the dashboard: lead score, owners and status', () => {
  it('sorts the lead feed by score, and shows the reasons of a score on focus', async () => {
    await page.goto(`/w/${ws}/organisations`);
    await page.getByRole('heading', { name: 'Organisations', level: 1 }).waitFor();
    const header = page.getByRole('columnheader', { name: 'Score' });
    await header.getByRole('button', { name: 'Score', exact: true }).click();
    await page.waitForURL(/sort=-score/);
    expect(await header.getAttribute('aria-sort')).toBe('descending');
    const byScore = await leads('sort=-score');
    await expect.poll(() => namesOnScreen(page)).toEqual(byScore.map((o) => o.name));
    const scores = byScore.map((o) => o.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));

    // The reasons of the top score, on keyboard focus, as the button's description too.
    const top = byScore[0] as Organisation;
    expect(top.score_reasons.length).toBeGreaterThan(0);
    const score = page.getByRole('row', { name: new RegExp(top.name) }).getByRole('button', {
      name: `Score ${top.score}`,
    });
    await score.focus();
    const tip = page.getByRole('tooltip');
    await tip.waitFor();
    for (const reason of top.score_reasons) await tip.getByText(reason.reason).waitFor();
    const describedBy = (await score.getAttribute('aria-describedby')) ?? '';
    const described = await page.locator(`[id="${describedBy}"]`).textContent();
    expect(described).toContain(top.score_reasons[0]?.reason);
    await look(page, 'lead-feed-score');
    await page.keyboard.press('Escape');
    await expect.poll(() => tip.count()).toBe(0);

    // Pressed again: lowest first.
    await header.getByRole('button', { name: 'Score', exact: true }).click();
    await page.waitForURL(/sort=score/);
    expect(await header.getAttribute('aria-sort')).toBe('ascending');
    await expect
      .poll(() => namesOnScreen(page))
      .toEqual((await leads('sort=score')).map((o) => o.name));
  });

  it('sets the owner and status on an organisation’s page; a hidden one leaves the lead feed', async () => {
    // Two leads nobody owns yet (the demo gives its maker a few).
    const [first, second] = (await leads('sort=-score')).filter((o) => o.owner === null);
    const hidden = first as Organisation;
    const mine = second as Organisation;

    await page.goto(`/w/${ws}/organisations/${hidden.uuid}`);
    await page.getByRole('heading', { level: 1, name: hidden.name }).waitFor();
    const score = page.getByRole('region', { name: 'Score' });
    await score.getByText(hidden.score_reasons[0]?.reason ?? '').waitFor();
    const owner = page.getByRole('combobox', { name: 'Owner' });
    expect(await owner.inputValue()).toBe('');
    await owner.selectOption({ label: 'owner (you)' });
    await page.getByRole('status').getByText('Owner saved.').waitFor();
    const owned = (await admin.api('GET', `/v1/workspaces/${ws}/organisations/${hidden.uuid}`)).body
      .data as Organisation;
    expect(owned.owner?.email).toBe('owner@example.com');
    const status = page.getByRole('combobox', { name: 'Status' });
    expect(await status.inputValue()).toBe('lead');
    await status.selectOption({ label: 'Hidden' });
    await page.getByRole('status').getByText('Status saved.').waitFor();
    expect(
      (await admin.api('GET', `/v1/workspaces/${ws}/organisations/${hidden.uuid}`)).body.data
        .status,
    ).toBe('hidden');
    await look(page, 'organisation-owner-status');

    // Back in the lead feed (no reload): gone, until hidden organisations are asked for.
    await page.getByRole('link', { name: '← Organisations' }).click();
    await page.getByRole('heading', { name: 'Organisations', level: 1 }).waitFor();
    // The list drawn (the other lead on it), and the hidden one not.
    await expect.poll(() => namesOnScreen(page)).toContain(mine.name);
    expect(await namesOnScreen(page)).not.toContain(hidden.name);
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Hidden' });
    await page.waitForURL(/status=hidden/);
    await expect.poll(() => namesOnScreen(page)).toEqual([hidden.name]);

    // My accounts: what the signed-in person owns (leads only, unless asked).
    await admin.api('PATCH', `/v1/workspaces/${ws}/organisations/${mine.uuid}`, {
      owner_uuid: admin.id,
    });
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Leads' });
    await page.getByRole('button', { name: 'My accounts' }).click();
    await page.waitForURL(/owner=me/);
    expect(
      await page.getByRole('button', { name: 'My accounts' }).getAttribute('aria-pressed'),
    ).toBe('true');
    const myLeads = (await leads('owner=me')).map((o) => o.name);
    expect(myLeads).toContain(mine.name);
    expect(myLeads).not.toContain(hidden.name);
    await expect.poll(() => namesOnScreen(page)).toEqual(myLeads);
    await look(page, 'lead-feed-my-accounts');
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Every status' });
    const allMine = (await leads('owner=me&include_all=true')).map((o) => o.name);
    expect(allMine).toEqual(expect.arrayContaining([hidden.name, ...myLeads]));
    await expect.poll(() => namesOnScreen(page)).toEqual(allMine);

    // The filters offer the status with its values, and the score.
    await page.getByRole('button', { name: 'More filters' }).click();
    const field = page.getByRole('combobox', { name: 'Field' });
    expect(await field.getByRole('option').allTextContents()).toEqual(
      expect.arrayContaining(['Score', 'Status', 'Owner (member e-mail)']),
    );
    await field.selectOption({ label: 'Status' });
    expect(
      await page.getByRole('combobox', { name: 'Value' }).getByRole('option').allTextContents(),
    ).toEqual(['Choose…', 'Lead', 'Customer', 'Competitor', 'Hidden']);
  });

  it('shows a member the scoring rules read-only, while an admin edits them with a live preview and saves', async () => {
    await memberPage.goto(`/w/${ws}/settings`);
    const readOnly = memberPage.getByRole('region', { name: 'Lead scoring' });
    await readOnly.getByText(/^Only admins can change lead scoring/).waitFor();
    await readOnly.getByText(/^\d+ of \d+ leads? would score above 60$/).waitFor();
    expect(await readOnly.getByRole('button', { name: 'Save scoring' }).isDisabled()).toBe(true);
    expect(await readOnly.getByRole('textbox', { name: 'Rule name' }).first().isDisabled()).toBe(
      true,
    );
    await look(memberPage, 'settings-lead-scoring-member');

    await page.goto(`/w/${ws}/settings`);
    const scoring = page.getByRole('region', { name: 'Lead scoring' });
    const saved = (await admin.api('GET', `/v1/workspaces/${ws}/scoring`)).body.data;
    expect(saved.defaults).toBe(true);
    const { rules, key_pages } = saved;
    const now = (
      await admin.api('POST', `/v1/workspaces/${ws}/scoring/preview`, { rules, key_pages })
    ).body.data;
    const preview = scoring.getByRole('status').filter({ hasText: /would score above 60/ });
    await preview.getByText(`${now.above} of ${now.leads} leads would score above 60`).waitFor();

    // A rule that every lead matches, worth 100: all of them would be above 60.
    await scoring.getByRole('button', { name: 'Add rule' }).click();
    const rule = scoring.getByRole('group', { name: `Rule ${rules.length + 1}` });
    await rule.getByRole('textbox', { name: 'Rule name' }).fill('Every visitor');
    await rule.getByRole('spinbutton', { name: 'Points' }).fill('100');
    await rule.getByRole('combobox', { name: 'Field' }).selectOption({ label: 'Sessions' });
    await rule.getByRole('combobox', { name: 'Comparison' }).selectOption({ label: 'is at least' });
    await preview.getByText(/^Fill in every rule/).waitFor();
    await rule.getByRole('spinbutton', { name: 'Value' }).fill('1');
    await preview.getByText(`${now.leads} of ${now.leads} leads would score above 60`).waitFor();
    // A key page, then taken away again.
    await scoring.getByRole('button', { name: 'Add key page' }).click();
    const keyPage = scoring.getByRole('group', { name: `Key page ${key_pages.length + 1}` });
    await keyPage.getByRole('textbox', { name: 'URL contains' }).fill('/careers');
    await keyPage.getByRole('button', { name: `Remove key page ${key_pages.length + 1}` }).click();
    await look(page, 'settings-lead-scoring');

    await scoring.getByRole('button', { name: 'Save scoring' }).click();
    await scoring.getByText('Saved. Scores follow within a minute.').waitFor();
    const stored = (await admin.api('GET', `/v1/workspaces/${ws}/scoring`)).body.data;
    expect(stored.defaults).toBe(false);
    expect(stored.key_pages).toEqual(key_pages);
    expect(stored.rules.at(-1)).toEqual({
      name: 'Every visitor',
      points: 100,
      filters: {
        operator: 'AND',
        conditions: [{ field: 'sessions', comparison: 'greater_than_or_equal', value: 1 }],
      },
    });
    // Scores follow: every lead gets the new rule's points.
    await expect
      .poll(async () => (await leads('sort=score'))[0]?.score, { timeout: 60_000 })
      .toBe(100);
    // And back to the defaults.
    await scoring.getByRole('button', { name: 'Reset to defaults' }).click();
    await scoring.getByText('Back to the defaults. Scores follow within a minute.').waitFor();
    expect((await admin.api('GET', `/v1/workspaces/${ws}/scoring`)).body.data.defaults).toBe(true);
    expect(await scoring.getByRole('button', { name: 'Reset to defaults' }).count()).toBe(0);
  });

  it('saves excluded domains, pasted and from a file, and says how many organisations it hid', async () => {
    const [target] = await leads('sort=name');
    const excluded = target as Organisation;
    // Its web address pasted: kept as its registrable domain.
    const domain = new URL(excluded.website).hostname.replace(/^www\./, '');
    await page.goto(`/w/${ws}/settings`);
    const section = page.getByRole('region', { name: 'Excluded domains' });
    await section.getByRole('textbox', { name: 'Excluded domains' }).fill(excluded.website);
    await section.getByLabel('Add from a file (.txt or .csv)').setInputFiles({
      name: 'customers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('domain,name\nhttps://www.customer.example/,Customer\n'),
    });
    await section.getByText('Read 1 domain from customers.csv: save to apply them.').waitFor();
    await section.getByRole('button', { name: 'Save excluded domains' }).click();
    await section.getByText('Saved 2 domains: 1 organisation hidden, 0 brought back.').waitFor();
    expect(
      (await admin.api('GET', `/v1/workspaces/${ws}/excluded-domains`)).body.data.domains,
    ).toEqual([domain, 'customer.example'].sort());
    expect(
      (await admin.api('GET', `/v1/workspaces/${ws}/organisations/${excluded.uuid}`)).body.data
        .status,
    ).toBe('hidden');
    // What the server stored, each as its registrable domain.
    await expect
      .poll(() => section.getByRole('textbox', { name: 'Excluded domains' }).inputValue())
      .toBe([domain, 'customer.example'].sort().join('\n'));
    await look(page, 'settings-excluded-domains');

    // A member reads the list and cannot save it.
    await memberPage.goto(`/w/${ws}/settings`);
    const readOnly = memberPage.getByRole('region', { name: 'Excluded domains' });
    await readOnly.getByText('Only admins can change the excluded domains.').waitFor();
    const list = readOnly.getByRole('textbox', { name: 'Excluded domains' });
    expect(await list.getAttribute('readonly')).not.toBeNull();
    expect(await readOnly.getByRole('button', { name: 'Save excluded domains' }).count()).toBe(0);
  });

  it('switches a member’s own My accounts digest on and off', async () => {
    await memberPage.goto(`/w/${ws}/settings`);
    const digest = memberPage
      .getByRole('region', { name: 'Notifications' })
      .getByRole('switch', { name: 'My accounts digest' });
    await expect.poll(() => digest.getAttribute('aria-checked')).toBe('false');
    await digest.click();
    await expect.poll(() => digest.getAttribute('aria-checked')).toBe('true');
    const mine = async () => (await member.api('GET', `/v1/workspaces/${ws}/my-digest`)).body.data;
    expect(await mine()).toMatchObject({ enabled: true });
    await digest.click();
    await expect.poll(() => digest.getAttribute('aria-checked')).toBe('false');
    expect(await mine()).toMatchObject({ enabled: false });
  });

  it('makes an alert about one member’s organisations that goes to each organisation’s owner', async () => {
    await page.goto(`/w/${ws}/settings`);
    const alerts = page.getByRole('region', { name: 'Notifications' });
    const form = alerts.getByRole('form', { name: 'New alert' });
    await form.getByRole('textbox', { name: 'Alert name' }).fill('My accounts visiting');
    await form.getByRole('combobox', { name: 'Owned by' }).selectOption({ label: 'owner (you)' });
    await form.getByRole('combobox', { name: 'Send by' }).selectOption('E-mail');
    await form.getByRole('checkbox', { name: 'To the organisation’s owner' }).check();
    // Addresses are only a fallback now.
    await form.getByRole('textbox', { name: 'Else to (addresses)' }).waitFor();
    await form.getByRole('button', { name: 'Add alert' }).click();
    await alerts.getByText(/owned by owner → e-mail to the owner$/).waitFor();
    const rules = (await admin.api('GET', `/v1/workspaces/${ws}/notifications`)).body.data;
    expect(rules.find((r: { name: string }) => r.name === 'My accounts visiting')).toMatchObject({
      trigger: 'organisation.visited',
      filter: { owner: admin.id },
      channel: { type: 'email', to: [], to_owner: true },
    });
  });
});
