import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, look, startDashboard } from './harness.js';

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
});
afterAll(() => d.close());

describe('the dashboard: Segments', () => {
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
    await page.getByRole('link', { name: 'New segment' }).click();
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
    await look(page, 'segment-builder');
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
    await look(page, 'segments');

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
    expect(await page.getByRole('combobox', { name: 'Segment' }).inputValue()).toBe(uuid);

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
