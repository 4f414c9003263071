import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '../accounts/helpers.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { type Dashboard, look, startDashboard } from './harness.js';

let d: Dashboard;
let who: Person;
let page: Page;
let ws: string;
const day = (offset: number) =>
  new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  d = await startDashboard();
  ({ who, page } = await d.signedIn('lead@example.com'));
  ws = (await who.api('POST', '/v1/workspaces/demo')).body.data.uuid;
});
afterAll(() => d.close());

/** What the Overview's tiles say, in order: each figure and the notes under it. */
const tiles = (p: Page) => p.getByRole('definition').allTextContents();

interface Totals {
  visitors: number;
  identified_visitors: number;
  sessions: number;
  organisations: number;
  pageviews: number;
}
/** The tiles a person must see for the API's totals: the same figures, each labelled. */
function tilesOf(totals: Totals): string[] {
  const n = (value: number) => value.toLocaleString('en');
  const percent = Math.round((totals.identified_visitors / totals.visitors) * 100);
  return [
    n(totals.visitors),
    `${n(totals.identified_visitors)} of ${n(totals.visitors)} visitors identified (${percent}%)`,
    n(totals.sessions),
    'by identified visitors',
    n(totals.organisations),
    n(totals.pageviews),
    'by identified visitors',
  ];
}

/** The organisation names in the table, top to bottom. */
const namesOnScreen = (p: Page) =>
  p
    .getByRole('table')
    .getByRole('row')
    .filter({ has: p.getByRole('link') })
    .getByRole('link')
    .allTextContents();

describe('the dashboard: Overview and Organisations', () => {
  it('shows the same per-day numbers as the stats API', async () => {
    await page.goto(`/w/${ws}`);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const figure = page.getByRole('figure', { name: 'Visits per day' });
    await figure.waitFor();
    const range = `date_from=${day(29)}&date_to=${day(0)}`;
    const stats = (await who.api('GET', `/v1/workspaces/${ws}/stats?${range}`)).body.data;
    // The tiles are the range's totals, and the match rate says how many visitors those are.
    expect(await page.getByRole('term').allTextContents()).toEqual([
      'Visitors',
      'Sessions',
      'Organisations',
      'Page views',
    ]);
    await expect.poll(() => tiles(page)).toEqual(tilesOf(stats.totals));
    expect(stats.totals.identified_visitors).toBeLessThan(stats.totals.visitors);
    // Stats are about traffic: every organisation that visited, customers too (the lead
    // feed leaves those out unless asked).
    const listed = await who.api(
      'GET',
      `/v1/workspaces/${ws}/organisations?${range}&size=1&include_all=true`,
    );
    expect(stats.totals.organisations).toBe(listed.body.total);
    await figure.getByText('Show the numbers').click();
    const rows = await figure.getByRole('table').getByRole('row').all();
    const shown = [];
    for (const row of rows.slice(1)) {
      const cells = await row.getByRole('cell').allTextContents();
      shown.push({
        date: await row.getByRole('rowheader').textContent(),
        sessions: Number(cells[0]?.replace(/,/g, '')),
        organisations: Number(cells[1]?.replace(/,/g, '')),
        pageviews: Number(cells[2]?.replace(/,/g, '')),
      });
    }
    expect(shown).toEqual(
      stats.days.map((d: Record<string, unknown>) => ({
        date: d.date,
        sessions: d.sessions,
        organisations: d.organisations,
        pageviews: d.pageviews,
      })),
    );
    expect(stats.days.some((x: { sessions: number }) => x.sessions > 0)).toBe(true);
    // The most active organisations link to their pages.
    const leader = stats.top_organisations[0];
    await expect
      .poll(() => page.getByRole('link', { name: leader.name }).count())
      .toBeGreaterThan(0);
    await look(page, 'overview');
    // A range in the URL is the range shown, and survives a reload.
    await page.goto(`/w/${ws}?from=${day(6)}&to=${day(0)}`);
    await page
      .getByRole('figure', { name: 'Visits per day' })
      .getByText('Show the numbers')
      .click();
    await expect
      .poll(() => page.getByRole('figure', { name: 'Visits per day' }).getByRole('row').count())
      .toBe(8);
  });

  it('lists the same organisations as the API, for a search, a tag and a segment', async () => {
    const api = (query: string) =>
      who.api(
        'GET',
        `/v1/workspaces/${ws}/organisations?date_from=${day(29)}&date_to=${day(0)}&size=25&${query}`,
      );
    await page.goto(`/w/${ws}/organisations`);
    await page.getByRole('heading', { name: 'Organisations', level: 1 }).waitFor();
    const all = (await api('')).body;
    await expect
      .poll(() => namesOnScreen(page))
      .toEqual(all.data.map((o: { name: string }) => o.name));
    for (const header of ['Organisation', 'Last seen', 'Sessions', 'Page views']) {
      expect(await page.getByRole('columnheader', { name: header }).count()).toBe(1);
    }
    await look(page, 'organisations');

    // Search: what the API answers for the same name.
    await page.getByRole('searchbox', { name: 'Search organisations' }).fill('co');
    await page.waitForURL(/q=co/);
    const searched = (await api('name=co')).body.data.map((o: { name: string }) => o.name);
    expect(searched.length).toBeGreaterThan(0);
    await expect.poll(() => namesOnScreen(page)).toEqual(searched);

    // A tag given in the API shows in the Tag filter and narrows the list.
    const first = all.data[1];
    await who.api('POST', `/v1/workspaces/${ws}/organisations/${first.uuid}/tags`, {
      tag_name: 'Target account',
    });
    await page.goto(`/w/${ws}/organisations`);
    await page.getByRole('combobox', { name: 'Tag' }).selectOption('Target account');
    await expect.poll(() => namesOnScreen(page)).toEqual([first.name]);

    // A segment chosen in the combobox: the segment's organisations, as the API lists them.
    const segment = (
      await who.api('POST', `/v1/workspaces/${ws}/segments`, {
        name: 'Software companies',
        filters: {
          operator: 'AND',
          conditions: [{ field: 'industry', comparison: 'equal', value: 'Software' }],
        },
      })
    ).body.uuid;
    await page.goto(`/w/${ws}/organisations`);
    await page
      .getByRole('combobox', { name: 'Segment' })
      .selectOption({ label: 'Software companies' });
    await page.waitForURL(new RegExp(`segment=${segment}`));
    const members = (await api(`segmentUuid=${segment}`)).body.data.map(
      (o: { name: string }) => o.name,
    );
    expect(members.length).toBeGreaterThan(1);
    await expect.poll(() => namesOnScreen(page)).toEqual(members);
    // The URL carries the filter: a reload shows the same list.
    await page.reload();
    await expect.poll(() => namesOnScreen(page)).toEqual(members);

    // Ad hoc filters with the segment grammar's fields, ANDed with the rest.
    await page.goto(`/w/${ws}/organisations`);
    await page.getByRole('button', { name: 'More filters' }).click();
    await page.getByRole('combobox', { name: 'Field' }).selectOption({ label: 'Sessions' });
    await page.getByRole('combobox', { name: 'Comparison' }).selectOption({ label: 'is at least' });
    await page.getByRole('spinbutton', { name: 'Value' }).fill('10');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/filters=/);
    const busy = JSON.stringify({
      operator: 'AND',
      conditions: [{ field: 'sessions', comparison: 'greater_than_or_equal', value: 10 }],
    });
    const frequent = (await api(`filters=${encodeURIComponent(busy)}`)).body.data.map(
      (o: { name: string }) => o.name,
    );
    expect(frequent.length).toBeGreaterThan(0);
    expect(frequent.length).toBeLessThan(all.total);
    await expect.poll(() => namesOnScreen(page)).toEqual(frequent);
  });

  it('pages through the list and exports what is shown as CSV', async () => {
    await page.goto(`/w/${ws}/organisations`);
    const pageTwo = (
      await who.api(
        'GET',
        `/v1/workspaces/${ws}/organisations?date_from=${day(29)}&date_to=${day(0)}&size=25&page=2`,
      )
    ).body.data.map((o: { name: string }) => o.name);
    expect(pageTwo.length).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/page=2/);
    await expect.poll(() => namesOnScreen(page)).toEqual(pageTwo);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(
      /^acme-analytics\.example-organisations-\d{4}-\d{2}-\d{2}\.csv$/,
    );
  });

  it('counts a new site’s visitors, and the identified ones everywhere else, tiles and lists alike', async () => {
    const site = (await who.api('POST', '/v1/workspaces', { url: 'https://new-site.example' })).body
      .data;
    const send = collector(d.t.url);
    const page_ = (path: string) => `https://new-site.example/${path}`;
    const now = Date.now();
    // Three visitors nobody can name (loopback is nobody's network), five page views.
    const visitors = [randomUUID(), randomUUID(), randomUUID()];
    const views = [['', 'pricing'], ['pricing', 'docs'], ['blog']];
    for (const [i, visitor] of visitors.entries()) {
      const events = (views[i] ?? []).map((path, j) => pageview(page_(path), now - 60_000 + j));
      expect((await send(visit(site.tracking_script_id, events, { visitor }))).status).toBe(202);
    }
    await page.goto(`/w/${site.uuid}`);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const zero = {
      visitors: 3,
      identified_visitors: 0,
      sessions: 0,
      organisations: 0,
      pageviews: 0,
    };
    await expect.poll(() => tiles(page)).toEqual(tilesOf(zero));
    await page.getByText('None of these visitors is identified yet').waitFor();
    // No list of pages beside a Sessions figure of 0.
    expect(await page.getByRole('heading', { name: 'Top pages' }).count()).toBe(0);
    await look(page, 'overview-anonymous');

    // One of them gives a business address: 1 of 3, and the lists are theirs.
    const named = await send(
      visit(site.tracking_script_id, [identify(page_('pricing'), 'jo@initech.com', now)], {
        visitor: visitors[1],
      }),
    );
    expect(named.status).toBe(202);
    await page.reload();
    await expect
      .poll(() => tiles(page))
      .toEqual(
        tilesOf({ ...zero, identified_visitors: 1, sessions: 1, organisations: 1, pageviews: 2 }),
      );
    await page.getByText('1 of 3 visitors identified (33%)').waitFor();
    const pages = page.getByRole('region', { name: 'Top pages' }).getByRole('listitem');
    await expect.poll(() => pages.allTextContents()).toEqual(['/docs1 views', '/pricing1 views']);
    await look(page, 'overview-match-rate');
  });

  it('says what to do in a workspace with no visits yet', async () => {
    const empty = (await who.api('POST', '/v1/workspaces', { url: 'https://quiet.example' })).body
      .data.uuid;
    await page.goto(`/w/${empty}`);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByText('The tracking snippet has sent nothing').waitFor();
    await look(page, 'overview-empty');
    await page.getByRole('link', { name: 'Get the snippet in Settings' }).click();
    await page.waitForURL(new RegExp(`/w/${empty}/settings`));
    await page.goto(`/w/${empty}/organisations`);
    await page.getByText('No organisation matches these filters').waitFor();
  });
});
