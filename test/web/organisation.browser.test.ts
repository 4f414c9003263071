import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '../accounts/helpers.js';
import { type Dashboard, look, startDashboard } from './harness.js';

let d: Dashboard;
let who: Person;
let page: Page;
let ws: string;

interface Event {
  event_type: string;
  url: string;
  name?: string;
  form_name?: string;
  fields?: { name: string; value: string }[];
}
interface Session {
  uuid: string;
  organisation_uuid: string;
  started_at: string;
  events: Event[];
}

beforeAll(async () => {
  d = await startDashboard();
  ({ who, page } = await d.signedIn('rep@example.com'));
  ws = (await who.api('POST', '/v1/workspaces/demo')).body.data.uuid;
});
afterAll(() => d.close());

describe('the dashboard: an organisation’s page', () => {
  it('shows its visits newest first, each with its pages and events in order', async () => {
    // An organisation whose latest session has a form and a custom event.
    const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const sessions = (
      await who.api('GET', `/v1/workspaces/${ws}/sessions?date_from=${from}&size=1000`)
    ).body.data as Session[];
    const latest = new Map<string, Session>();
    for (const s of sessions)
      if (!latest.has(s.organisation_uuid)) latest.set(s.organisation_uuid, s);
    const target = [...latest.values()].find(
      (s) =>
        s.events.some((e) => e.event_type === 'form_submit') &&
        s.events.some((e) => e.event_type === 'custom'),
    );
    expect(target).toBeDefined();
    const org = (
      await who.api('GET', `/v1/workspaces/${ws}/organisations/${target?.organisation_uuid}`)
    ).body.data;

    // From the lead feed to its page.
    await page.goto(`/w/${ws}/organisations?q=${encodeURIComponent(org.name)}`);
    await page.getByRole('link', { name: org.name }).click();
    await page.getByRole('heading', { level: 1, name: org.name }).waitFor();
    await page.getByRole('heading', { name: 'Visits' }).waitFor();

    const visits = page.getByRole('list', { name: 'Visits, newest first' });
    const first = visits.getByRole('listitem').first();
    const events = first.getByRole('list', { name: 'Pages and events in order' });
    // The visits arrive after the page's heading: read them once the first one is shown.
    await events.getByRole('listitem').first().waitFor();
    const items = await events.getByRole('listitem').allTextContents();
    // One entry per event, in the API's order, each saying what happened.
    const expected = (target as Session).events.map((e) =>
      e.event_type === 'pageview'
        ? 'Viewed'
        : e.event_type === 'form_submit'
          ? 'Submitted form'
          : e.event_type === 'custom'
            ? `Event ${e.name}`
            : e.event_type === 'download'
              ? 'Downloaded'
              : 'Clicked',
    );
    expect(items.length).toBe(expected.length);
    for (const [i, text] of items.entries()) expect(text).toContain(expected[i]);
    // The form shows its fields and values.
    const form = (target as Session).events.find((e) => e.event_type === 'form_submit') as Event;
    const formItem = items.find((text) => text.includes('Submitted form')) ?? '';
    for (const field of form.fields ?? []) {
      expect(formItem).toContain(`${field.name}: ${field.value}`);
    }
    await look(page, 'organisation');
  });

  it('adds and removes a tag, and the API agrees', async () => {
    const org = (await who.api('GET', `/v1/workspaces/${ws}/organisations?size=1`)).body.data[0];
    await page.goto(`/w/${ws}/organisations/${org.uuid}`);
    await page.getByRole('heading', { level: 1, name: org.name }).waitFor();
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('combobox', { name: 'Tag name' }).fill('Hot lead');
    await page.getByRole('button', { name: 'Save tag' }).click();
    await page.getByRole('button', { name: 'Remove tag Hot lead' }).waitFor();
    const tagged = (await who.api('GET', `/v1/workspaces/${ws}/organisations/${org.uuid}`)).body
      .data;
    expect(tagged.tags).toEqual(['Hot lead']);
    await page.getByRole('button', { name: 'Remove tag Hot lead' }).click();
    await expect
      .poll(() => page.getByRole('button', { name: 'Remove tag Hot lead' }).count())
      .toBe(0);
    const untagged = (await who.api('GET', `/v1/workspaces/${ws}/organisations/${org.uuid}`)).body
      .data;
    expect(untagged.tags).toEqual([]);
  });
});
