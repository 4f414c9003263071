import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, look, startDashboard } from './harness.js';

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
});
afterAll(() => d.close());

/** What the builder's live count says for a total. */
const matching = (total: number) =>
  `${total.toLocaleString('en')} ${total === 1 ? 'organisation matches' : 'organisations match'}`;

describe('the dashboard: Segments', () => {
  it('builds AND(country, OR(industry, industry)), shows the 422 of a bad condition, saves and deletes', async () => {
    const { who, page } = await d.signedIn('builder@example.com');
    const ws = (await who.api('POST', '/v1/workspaces/demo')).body.data.uuid;
    const filters = {
      operator: 'AND',
      conditions: [
        { field: 'country', comparison: 'equal', value: 'DE' },
        {
          operator: 'OR',
          conditions: [
            { field: 'industry', comparison: 'equal', value: 'Software' },
            { field: 'industry', comparison: 'equal', value: 'Manufacturing' },
          ],
        },
      ],
    };
    const expected = (
      await who.api('POST', `/v1/workspaces/${ws}/organisations?page=1&size=1`, { filters })
    ).body.total;
    expect(expected).toBeGreaterThan(0);

    await page.goto(`/w/${ws}/segments`);
    await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
    await page.getByText('No segments yet').waitFor();
    await page.getByRole('button', { name: 'New segment' }).click();
    await page.waitForURL(/\/segments\/new$/);
    const status = page.getByRole('status').filter({ hasText: /match|count/i });
    await expect.poll(() => status.textContent()).toMatch(/Fill in every condition/);
    await page.getByRole('textbox', { name: 'Name' }).fill('German makers');
    const field = (n: number) => page.getByRole('combobox', { name: 'Field' }).nth(n);
    const comparison = (n: number) => page.getByRole('combobox', { name: 'Comparison' }).nth(n);
    const value = (n: number) => page.getByRole('textbox', { name: 'Value' }).nth(n);
    await field(0).selectOption({ label: 'Country (code)' });
    await comparison(0).selectOption({ label: 'is' });
    await value(0).fill('DE');
    await page.getByRole('button', { name: 'Add group' }).click();
    const nested = page.getByRole('group', { name: 'Group of conditions' });
    expect(await nested.getByRole('combobox', { name: 'Match' }).inputValue()).toBe('OR');
    await nested.getByRole('button', { name: 'Add condition' }).click();
    for (const [n, industry] of [
      [1, 'Software'],
      [2, 'Manufacturing'],
    ] as const) {
      await field(n).selectOption({ label: 'Industry' });
      await comparison(n).selectOption({ label: 'is' });
      await value(n).fill(industry);
    }
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe(matching(expected));

    // Only comparisons that fit a number are offered; a range with low > high is refused
    // by the server, and its message is shown.
    await page.getByRole('button', { name: 'Add condition' }).first().click();
    await field(3).selectOption({ label: 'Sessions' });
    const offered = await comparison(3).getByRole('option').allTextContents();
    expect(offered).toContain('is between');
    expect(offered).not.toContain('contains');
    await comparison(3).selectOption({ label: 'is between' });
    await page.getByRole('spinbutton', { name: 'Value', exact: true }).fill('10');
    await page.getByRole('spinbutton', { name: 'Second value' }).fill('2');
    await expect
      .poll(() => status.textContent(), { timeout: 10_000 })
      .toBe('No count: The low end must not be greater than the high end.');
    await page.getByText('The low end must not be greater than the high end.').nth(1).waitFor();
    await page.getByRole('button', { name: 'Remove condition' }).nth(3).click();
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe(matching(expected));
    await look(page, 'segment-builder');

    await page.getByRole('button', { name: 'Save segment' }).click();
    await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'German makers', exact: true }).waitFor();
    const uuid = (await who.api('GET', `/v1/workspaces/${ws}/segments`)).body.find(
      (s: { name: string }) => s.name === 'German makers',
    ).uuid;
    const members = (
      await who.api('GET', `/v1/workspaces/${ws}/organisations?segmentUuid=${uuid}&page=1&size=1`)
    ).body;
    expect(members.total).toBe(expected);
    await page.getByText(`${expected} organisation`).waitFor();
    expect(await page.getByRole('link', { name: 'View organisations' }).getAttribute('href')).toBe(
      `/w/${ws}/organisations?segment=${uuid}`,
    );
    await look(page, 'segments');

    // Deleting it, after confirming, takes it off the list.
    await page.getByRole('link', { name: 'German makers', exact: true }).click();
    await expect.poll(() => value(2).inputValue()).toBe('Manufacturing');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete segment' }).click();
    await page.getByText('No segments yet').waitFor();
    expect((await who.api('GET', `/v1/workspaces/${ws}/segments`)).body).toEqual([]);
  });

  it('offers units for relative dates, custom fields by type, and groups five deep at most', async () => {
    const { who, page } = await d.signedIn('dates@example.com');
    const ws = (await who.api('POST', '/v1/workspaces/demo')).body.data.uuid;
    expect(
      (
        await who.api('POST', `/v1/workspaces/${ws}/custom-fields`, {
          key: 'deal_size',
          name: 'Deal size',
          type: 'number',
        })
      ).status,
    ).toBe(201);
    const filters = {
      operator: 'AND',
      conditions: [
        { field: 'last_seen', comparison: 'less_than_x_units_ago', value: 2, unit: 'weeks' },
      ],
    };
    const expected = (
      await who.api('POST', `/v1/workspaces/${ws}/organisations?page=1&size=1`, { filters })
    ).body.total;

    await page.goto(`/w/${ws}/segments/new`);
    const field = page.getByRole('combobox', { name: 'Field' });
    await field.selectOption({ label: 'Last seen' });
    await page.getByRole('combobox', { name: 'Comparison' }).selectOption({
      label: 'is within the last',
    });
    await page.getByRole('spinbutton', { name: 'Value' }).fill('2');
    await page.getByRole('combobox', { name: 'Unit' }).selectOption('weeks');
    const status = page.getByRole('status').filter({ hasText: /match|count/i });
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe(matching(expected));

    // A custom number field: number comparisons and a number input.
    await field.selectOption({ label: 'Deal size' });
    const offered = await page
      .getByRole('combobox', { name: 'Comparison' })
      .getByRole('option')
      .allTextContents();
    expect(offered).toEqual(expect.arrayContaining(['is at least', 'is set', 'is not set']));
    expect(offered).not.toContain('is within the last');
    await page.getByRole('combobox', { name: 'Comparison' }).selectOption({ label: 'is set' });
    expect(await page.getByRole('spinbutton', { name: 'Value' }).count()).toBe(0);

    // Groups nest five deep; the fifth offers no further group.
    for (let depth = 2; depth <= 5; depth++) {
      // The innermost group's buttons come first: they sit inside its parent's.
      await page.getByRole('button', { name: 'Add group' }).first().click();
    }
    expect(await page.getByRole('group', { name: 'Group of conditions' }).count()).toBe(4);
    expect(await page.getByRole('button', { name: 'Add group' }).count()).toBe(4);
    await page.getByRole('button', { name: 'Remove group' }).first().click();
    expect(await page.getByRole('group', { name: 'Group of conditions' }).count()).toBe(0);
  });

  it('builds a segment with a nested group, counts it live, saves it and lists its organisations', async () => {
    const { who, page } = await d.signedIn('marketer@example.com');
    const ws = (await who.api('POST', '/v1/workspaces/demo')).body.data.uuid;
    const filters = {
      operator: 'AND',
      conditions: [
        { field: 'country', comparison: 'in', value: ['DE', 'AT', 'CH'] },
        {
          operator: 'OR',
          conditions: [
            { field: 'industry', comparison: 'equal', value: 'Software' },
            { field: 'industry', comparison: 'equal', value: 'Manufacturing' },
            { field: 'industry', comparison: 'equal', value: 'Retail' },
          ],
        },
      ],
    };
    const expected = (
      await who.api('POST', `/v1/workspaces/${ws}/organisations?size=100`, { filters })
    ).body;
    expect(expected.total).toBeGreaterThan(0);

    await page.goto(`/w/${ws}/segments`);
    await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New segment' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('DACH buyers');
    const field = (n: number) => page.getByRole('combobox', { name: 'Field' }).nth(n);
    const comparison = (n: number) => page.getByRole('combobox', { name: 'Comparison' }).nth(n);
    const value = (n: number) => page.getByRole('textbox', { name: 'Value' }).nth(n);
    await field(0).selectOption({ label: 'Country (code)' });
    await comparison(0).selectOption({ label: 'is one of' });
    await value(0).fill('DE, AT, CH');
    // A nested group: any of three industries.
    await page.getByRole('button', { name: 'Add group' }).first().click();
    await expect.poll(() => page.getByRole('combobox', { name: 'Field' }).count()).toBe(2);
    await value(1).fill('Software');
    const nested = page.getByRole('group', { name: 'Group of conditions' });
    await nested.getByRole('button', { name: 'Add condition' }).click();
    await nested.getByRole('button', { name: 'Add condition' }).click();
    await value(2).fill('Manufacturing');
    await value(3).fill('Retail');
    expect(await nested.getByRole('combobox', { name: 'Match' }).inputValue()).toBe('OR');
    // The live count is the API's count for the same filters.
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'match' }).textContent(), {
        timeout: 10_000,
      })
      .toBe(`${expected.total} organisations match`);
    await page.getByRole('button', { name: 'Save segment' }).click();

    await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'DACH buyers', exact: true }).waitFor();
    const saved = (await who.api('GET', `/v1/workspaces/${ws}/segments`)).body;
    const uuid = saved.find((s: { name: string }) => s.name === 'DACH buyers').uuid;
    const members = (
      await who.api('GET', `/v1/workspaces/${ws}/organisations?segmentUuid=${uuid}&size=100`)
    ).body;
    expect(members.total).toBe(expected.total);
    await page.getByText(`${expected.total} organisations`).waitFor();

    // Using it: its organisations in the lead feed.
    await page.getByRole('link', { name: 'View organisations in DACH buyers' }).click();
    await page.waitForURL(new RegExp(`segment=${uuid}`));
    const day = (offset: number) =>
      new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
    const shown = (
      await who.api(
        'GET',
        `/v1/workspaces/${ws}/organisations?segmentUuid=${uuid}&date_from=${day(29)}&date_to=${day(0)}&size=25`,
      )
    ).body.data.map((o: { name: string }) => o.name);
    await expect
      .poll(() => page.getByRole('table').getByRole('link').allTextContents())
      .toEqual(shown);
    await expect
      .poll(() => page.getByRole('combobox', { name: 'Segment' }).inputValue())
      .toBe(uuid);

    // Editing it again shows what was saved.
    await page.goto(`/w/${ws}/segments/${uuid}`);
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Value' }).nth(3).inputValue())
      .toBe('Retail');
    expect(await page.getByRole('textbox', { name: 'Value' }).first().inputValue()).toBe(
      'DE, AT, CH',
    );
  });
});
