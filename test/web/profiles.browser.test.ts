import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveSiteProfile } from '../../src/enrich/site-store.js';
import type { Person } from '../accounts/helpers.js';
import { collector, identify, visit } from '../helpers/collect.js';
import { type Dashboard, look, startDashboard } from './harness.js';

let d: Dashboard;
let who: Person;
let page: Page;
let ws: string;

interface Organisation {
  uuid: string;
  name: string;
  logo: string;
  description: string;
  profile_source: { directory: boolean; website: string | null; fetched_at: string | null };
}

/** Whether the row's or heading's image was drawn (a loaded image has a width of its own). */
const drawnImages = (where: Locator) =>
  where
    .locator('img')
    .evaluateAll((images) =>
      images
        .filter((image) => (image as unknown as { naturalWidth: number }).naturalWidth > 0)
        .map(() => true),
    );

beforeAll(async () => {
  d = await startDashboard();
  ({ who, page } = await d.signedIn('profiles@example.com'));
  ws = (await who.api('POST', '/v1/workspaces/demo')).body.data.uuid;
  // Two more organisations, named by e-mail domains; their homepages "were read" 3 days ago.
  const workspace = (await who.api('GET', `/v1/workspaces/${ws}`)).body.data;
  const send = collector(d.t.url);
  for (const email of ['jo@umbrella-outdoor.no', 'al@initech.example']) {
    await send(
      visit(workspace.tracking_script_id, [
        identify('https://www.acme-analytics.example/demo', email, Date.now()),
      ]),
    );
  }
  const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
  const site = (name: string, logo: string, description: string) => ({
    name,
    logo,
    description,
    phone: '',
    email: '',
    founded: '',
    size: '',
    address: {},
    profiles: [],
  });
  await saveSiteProfile(
    d.t.database.db,
    'umbrella-outdoor.no',
    'https://www.umbrella-outdoor.no/',
    site(
      'Umbrella Outdoor',
      // A logo that does not load: the initials stand in for it.
      `${d.t.url}/no-such-logo.png`,
      'Rainwear made to last, from Bergen since 1985.',
    ),
    threeDaysAgo,
  );
  await saveSiteProfile(
    d.t.database.db,
    'initech.example',
    'https://initech.example/',
    site('Initech', '', ''),
    threeDaysAgo,
  );
});
afterAll(() => d.close());

const find = async (name: string): Promise<Organisation> =>
  (await who.api('GET', `/v1/workspaces/${ws}/organisations?name=${encodeURIComponent(name)}`)).body
    .data[0];

describe('the dashboard: logos and where profiles come from', () => {
  it('shows each organisation’s logo in the lead feed, or its initials', async () => {
    await page.goto(`/w/${ws}/organisations`);
    const table = page.getByRole('table', { name: /Organisations/ });
    await table.waitFor();
    // A demo company: its logo, drawn, and no initials.
    const demo = (await who.api('GET', `/v1/workspaces/${ws}/organisations?size=100`)).body
      .data as Organisation[];
    const withLogo = demo.find((o) => o.logo.startsWith('data:image/svg+xml')) as Organisation;
    const logoRow = table
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: withLogo.name }) });
    await expect.poll(() => drawnImages(logoRow)).toEqual([true]);
    // Umbrella's logo fails to load: its initials on a disc instead; Initech has none at all.
    const umbrella = table.getByRole('row').filter({
      has: page.getByRole('link', { name: 'Umbrella Outdoor' }),
    });
    await umbrella.getByText('UO', { exact: true }).waitFor();
    expect(await umbrella.locator('img').count()).toBe(0);
    const initech = table.getByRole('row').filter({
      has: page.getByRole('link', { name: 'Initech' }),
    });
    await initech.getByText('I', { exact: true }).waitFor();
    await look(page, 'organisations-logos');
  });

  it('shows the logo, the description and the profile’s source on the organisation page', async () => {
    // A company the directory knows and whose homepage was read too.
    const demo = (await who.api('GET', `/v1/workspaces/${ws}/organisations?size=100`)).body
      .data as Organisation[];
    const both = demo.find(
      (o) => o.profile_source.directory && o.profile_source.website,
    ) as Organisation;
    expect(both).toBeDefined();
    await page.goto(`/w/${ws}/organisations/${both.uuid}`);
    const heading = page.getByRole('heading', { level: 1, name: both.name });
    await heading.waitFor();
    // The logo sits beside the heading, in the same header.
    await expect.poll(() => drawnImages(heading.locator('xpath=..'))).toEqual([true]);
    await page.getByText(both.description).waitFor();
    const site = new URL(both.profile_source.website as string).hostname.replace(/^www\./, '');
    const source = page.getByText(/^Profile from the company directory and from /);
    await source.waitFor();
    expect(await source.textContent()).toMatch(
      new RegExp(`^Profile from the company directory and from ${site}, read \\d+ days ago$`),
    );
    expect(await source.getByRole('link', { name: site }).getAttribute('href')).toBe(
      both.profile_source.website,
    );
    await look(page, 'organisation-profile-both');

    // Only the directory.
    const directory = demo.find((o) => !o.profile_source.website) as Organisation;
    await page.goto(`/w/${ws}/organisations/${directory.uuid}`);
    await page.getByRole('heading', { level: 1, name: directory.name }).waitFor();
    await page.getByText('Profile from the company directory', { exact: true }).waitFor();

    // Only the homepage, whose logo does not load.
    const umbrella = await find('Umbrella');
    await page.goto(`/w/${ws}/organisations/${umbrella.uuid}`);
    await page.getByRole('heading', { level: 1, name: 'Umbrella Outdoor' }).waitFor();
    await page.getByText('Rainwear made to last, from Bergen since 1985.').waitFor();
    await page.getByText('Profile from umbrella-outdoor.no, read 3 days ago').waitFor();
    await page.getByText('UO', { exact: true }).waitFor();
    await look(page, 'organisation-profile-site');
  });
});
