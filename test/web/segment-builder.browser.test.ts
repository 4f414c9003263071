import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { addCompanies } from '../helpers/companies.js';
import { type Dashboard, look, startDashboard } from './harness.js';

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
});
afterAll(() => d.close());

interface Listed {
  uuid: string;
  name: string;
}

describe('the dashboard: a segment over industries, countries, tags and custom fields', () => {
  it('builds AND(country, OR(industry, tag)), counts it as the API does, saves it and lists its members', async () => {
    const { who, page } = await d.signedIn('planner@example.com');
    const workspace = (await who.api('POST', '/v1/workspaces', { url: 'https://shop.example' }))
      .body.data;
    const ws: string = workspace.uuid;
    // Five organisations, known to the directory, that identified themselves on the site.
    const companies = [
      ['kraftwerk.example', 'Kraftwerk Software', 'Software', 'Berlin', 'DE'],
      ['rheinstahl.example', 'Rheinstahl', 'Manufacturing', 'Essen', 'DE'],
      ['elbe-bank.example', 'Elbe Bank', 'Finance', 'Hamburg', 'DE'],
      ['dublin-code.example', 'Dublin Code', 'Software', 'Dublin', 'IE'],
      ['seine-tools.example', 'Seine Tools', 'Manufacturing', 'Paris', 'FR'],
    ] as const;
    await addCompanies(
      d.t.database.db,
      companies.map(([domain, name, industry, city, country]) => ({
        domain,
        name,
        industry,
        address: { city, country },
      })),
    );
    const send = collector(d.t.url);
    const now = Date.now();
    for (const [domain] of companies) {
      const sent = await send(
        visit(workspace.tracking_script_id, [
          pageview('https://shop.example/pricing', now - 2000),
          identify('https://shop.example/pricing', `jo@${domain}`, now - 1000),
        ]),
      );
      expect(sent.status).toBe(202);
    }
    let organisations: Listed[] = [];
    await expect
      .poll(async () => {
        organisations = (await who.api('GET', `/v1/workspaces/${ws}/organisations?size=100`)).body
          .data;
        return organisations.length;
      })
      .toBe(5);
    const named = (name: string) => organisations.find((o) => o.name === name)?.uuid ?? '';
    // Tagged "target": one in Germany (matches by its tag), one in Ireland (country excludes it).
    for (const name of ['Rheinstahl', 'Dublin Code']) {
      const tagged = await who.api(
        'POST',
        `/v1/workspaces/${ws}/organisations/${named(name)}/tags`,
        {
          tag_name: 'target',
        },
      );
      expect(tagged.status).toBe(200);
    }
    // A select custom field, to see its options offered as values.
    const stage = await who.api('POST', `/v1/workspaces/${ws}/custom-fields`, {
      key: 'stage',
      name: 'Stage',
      type: 'select',
      options: [
        { key: 'lead', label: 'Lead', color: '#3366ff' },
        { key: 'won', label: 'Won', color: '#22aa55' },
      ],
    });
    expect(stage.status).toBe(201);

    const filters = {
      operator: 'AND',
      conditions: [
        { field: 'country', comparison: 'equal', value: 'DE' },
        {
          operator: 'OR',
          conditions: [
            { field: 'industry', comparison: 'equal', value: 'Software' },
            { field: 'tag', comparison: 'equal', value: 'target' },
          ],
        },
      ],
    };
    const expected = (
      await who.api('POST', `/v1/workspaces/${ws}/organisations?size=100`, { filters })
    ).body;
    expect(expected.data.map((o: Listed) => o.name).sort()).toEqual([
      'Kraftwerk Software',
      'Rheinstahl',
    ]);

    await page.goto(`/w/${ws}/segments`);
    await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New segment' }).click();
    await page.waitForURL(/\/segments\/new$/);
    await page.getByRole('textbox', { name: 'Name' }).fill('German targets');
    const field = (n: number) => page.getByRole('combobox', { name: 'Field' }).nth(n);
    const comparison = (n: number) => page.getByRole('combobox', { name: 'Comparison' }).nth(n);
    const value = (n: number) => page.getByRole('textbox', { name: 'Value' }).nth(n);

    // Each kind of field gets its own comparisons and value inputs.
    await field(0).selectOption({ label: 'Sessions' });
    const numeric = await comparison(0).getByRole('option').allTextContents();
    expect(numeric).toContain('is between');
    expect(numeric).not.toContain('contains');
    await comparison(0).selectOption({ label: 'is between' });
    expect(await page.getByRole('spinbutton', { name: 'Value', exact: true }).count()).toBe(1);
    expect(await page.getByRole('spinbutton', { name: 'Second value' }).count()).toBe(1);
    await field(0).selectOption({ label: 'Last seen' });
    await comparison(0).selectOption({ label: 'is within the last' });
    await page.getByRole('spinbutton', { name: 'Value', exact: true }).fill('7');
    expect(await page.getByRole('combobox', { name: 'Unit' }).inputValue()).toBe('days');
    await comparison(0).selectOption({ label: 'is between' });
    expect(
      await page.getByLabel('Value', { exact: true }).getAttribute('type'),
      'dates are picked as dates',
    ).toBe('date');
    await field(0).selectOption({ label: 'Stage' });
    await comparison(0).selectOption({ label: 'is' });
    expect(
      await page.getByRole('combobox', { name: 'Value' }).getByRole('option').allTextContents(),
    ).toEqual(['Choose…', 'Lead', 'Won']);
    await comparison(0).selectOption({ label: 'is set' });
    expect(await page.getByLabel('Value', { exact: true }).count()).toBe(0);

    // AND(country is DE, OR(industry is Software, tag is target)).
    await field(0).selectOption({ label: 'Country (code)' });
    await comparison(0).selectOption({ label: 'is' });
    await value(0).fill('DE');
    await page.getByRole('button', { name: 'Add group' }).click();
    const nested = page.getByRole('group', { name: 'Group of conditions' });
    await nested.getByRole('combobox', { name: 'Match' }).selectOption({ label: 'Any of' });
    await nested.getByRole('button', { name: 'Add condition' }).click();
    await field(1).selectOption({ label: 'Industry' });
    await comparison(1).selectOption({ label: 'is' });
    await value(1).fill('Software');
    await field(2).selectOption({ label: 'Tag' });
    await comparison(2).selectOption({ label: 'is' });
    await value(2).fill('target');
    const status = page.getByRole('status').filter({ hasText: /match|count/i });
    await expect
      .poll(() => status.textContent(), { timeout: 10_000 })
      .toBe(`${expected.total} organisations match`);
    await look(page, 'segment-builder-tags');

    await page.getByRole('button', { name: 'Save segment' }).click();
    await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'German targets', exact: true }).waitFor();
    const listed = (await who.api('GET', `/v1/workspaces/${ws}/segments`)).body as Listed[];
    expect(listed.map((s) => s.name)).toEqual(['German targets']);
    const uuid = listed[0]?.uuid ?? '';
    // What was saved is what was built.
    const saved = (await who.api('GET', `/v1/workspaces/${ws}/segments/${uuid}`)).body;
    expect(saved.filters).toEqual(filters);
    const members = (
      await who.api('GET', `/v1/workspaces/${ws}/organisations?segmentUuid=${uuid}&size=100`)
    ).body;
    expect(members.data.map((o: Listed) => o.uuid).sort()).toEqual(
      expected.data.map((o: Listed) => o.uuid).sort(),
    );
    await page.getByText(`${expected.total} organisations`, { exact: true }).waitFor();

    // Using it: the lead feed shows its members.
    await page.getByRole('link', { name: 'View organisations in German targets' }).click();
    await page.waitForURL(new RegExp(`segment=${uuid}`));
    await expect
      .poll(() => page.getByRole('combobox', { name: 'Segment' }).inputValue())
      .toBe(uuid);
    await expect
      .poll(async () => (await page.getByRole('table').getByRole('link').allTextContents()).sort())
      .toEqual(['Kraftwerk Software', 'Rheinstahl']);
  });
});
