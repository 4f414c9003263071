import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { type Dashboard, look, startDashboard } from './harness.js';

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard({ TRUST_PROXY: '127.0.0.1' });
});
afterAll(() => d.close());

const day = (offset: number) =>
  new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);

describe('the dashboard: Sessions and Contacts', () => {
  it('lists the same sessions as the API for a URL filter, and narrows to one visitor', async () => {
    const { who, page } = await d.signedIn('analyst@example.com');
    const ws = (await who.api('POST', '/v1/workspaces/demo')).body.data.uuid;
    const api = async (query: string) =>
      (
        await who.api(
          'GET',
          `/v1/workspaces/${ws}/sessions?date_from=${day(29)}&date_to=${day(0)}&size=25&${query}`,
        )
      ).body;
    await page.goto(`/w/${ws}/sessions`);
    await page.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: 'Page URL contains' }).fill('/pricing');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/url=%2Fpricing/);
    const expected = await api('url=%2Fpricing');
    expect(expected.total).toBeGreaterThan(0);
    const rows = page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(expected.data.length + 1);
    await page
      .getByRole('status')
      .filter({ hasText: `${expected.total} sessions` })
      .waitFor();
    // Each row's visitor link is the API's session's visitor, in the API's order.
    const visitors = await page
      .getByRole('link', { name: /^Sessions of visitor/ })
      .allTextContents();
    expect(visitors).toEqual(
      expected.data.map((s: { visitor_uuid: string }) => s.visitor_uuid.slice(0, 8)),
    );
    // And names its organisation, as the API's organisation of that session is named.
    const names = new Map<string, string>();
    for (const id of new Set(
      expected.data.map((s: { organisation_uuid: string }) => s.organisation_uuid),
    )) {
      names.set(
        id as string,
        (await who.api('GET', `/v1/workspaces/${ws}/organisations/${id}`)).body.data.name,
      );
    }
    const organisationCells = rows.locator('td:nth-child(2)');
    await expect
      .poll(() => organisationCells.allTextContents())
      .toEqual(
        expected.data.map((s: { organisation_uuid: string }) => names.get(s.organisation_uuid)),
      );
    await look(page, 'sessions');
    // One visitor's sessions.
    const visitor = expected.data[0].visitor_uuid;
    await page
      .getByRole('link', { name: /^Sessions of visitor/ })
      .first()
      .click();
    await page.waitForURL(new RegExp(`visitor=${visitor}`));
    const theirs = await api(`url=%2Fpricing&visitor_uuid=${visitor}`);
    await expect.poll(() => rows.count()).toBe(theirs.data.length + 1);
  });

  it('lists people who identified themselves, with their organisation', async () => {
    const { who, page } = await d.signedIn('seller@example.com');
    const workspace = (await who.api('POST', '/v1/workspaces', { url: 'https://shop.example' }))
      .body.data;
    await page.goto(`/w/${workspace.uuid}/contacts`);
    await page.getByText("footfall('identify', 'jo@acme.com');").waitFor();
    const now = Date.now();
    const sent = await collector(d.t.url)(
      visit(workspace.tracking_script_id, [
        pageview('https://shop.example/signup', now - 1000),
        identify('https://shop.example/signup', 'jo@acme.com', now),
      ]),
      { 'x-forwarded-for': '81.2.69.160' },
    );
    expect(sent.status).toBe(202);
    let contacts: { email: string; organisation_uuid: string }[] = [];
    await expect
      .poll(async () => {
        contacts = (await who.api('GET', `/v1/workspaces/${workspace.uuid}/contacts`)).body.data;
        return contacts.length;
      })
      .toBe(1);
    const organisation = (
      await who.api(
        'GET',
        `/v1/workspaces/${workspace.uuid}/organisations/${contacts[0]?.organisation_uuid}`,
      )
    ).body.data;
    await page.reload();
    await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor();
    // The heading shows while the contacts load; the table once they have.
    const row = page.getByRole('row').filter({ hasText: 'jo@acme.com' });
    await row.getByRole('link', { name: organisation.name, exact: true }).waitFor();
    for (const header of ['Email', 'Organisation']) {
      expect(await page.getByRole('columnheader', { name: header }).count()).toBe(1);
    }
    await look(page, 'contacts');
  });
});
