import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { until } from '../helpers/wait.js';

// The scoring job in the server: one workspace whose rule the database refuses (a custom
// value of the wrong type, written behind the API's back) must not keep another's
// organisations from being scored.

const SITE = 'https://site.example';
let t: TestApp;
let api: ReturnType<typeof client>;

async function workspaceWith(domain: string) {
  const ws = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  const answer = await collector(t.url)(
    visit(ws.tracking_script_id, [
      identify(`${SITE}/`, `eve@${domain}`, Date.now()),
      pageview(`${SITE}/pricing`, Date.now() + 1000),
    ]),
  );
  expect(answer.status).toBe(202);
  let organisation: { uuid: string; score: number } | undefined;
  await until(async () => {
    organisation = (await api('GET', `/v1/workspaces/${ws.uuid}/organisations`)).body.data[0];
    return organisation !== undefined;
  });
  return { ws, organisation: organisation as { uuid: string; score: number } };
}

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
});
afterAll(async () => {
  await t.close();
});

describe('the scoring job', () => {
  it('scores the other workspaces when one workspace’s rule fails', async () => {
    const broken = await workspaceWith('broken.example');
    const fine = await workspaceWith('fine.example');
    const scoreOf = async (ws: { uuid: string }) =>
      (await api('GET', `/v1/workspaces/${ws.uuid}/organisations`)).body.data[0].score;
    // Scored first by the defaults (a look at the pricing page), so what the broken rule
    // leaves below is that score, whichever came first on a busy machine.
    await until(async () => (await scoreOf(broken.ws)) > 0 && (await scoreOf(fine.ws)) > 0);
    const brokenBefore = await scoreOf(broken.ws);
    for (const { ws } of [broken, fine]) {
      const field = await api('POST', `/v1/workspaces/${ws.uuid}/custom-fields`, {
        key: 'budget',
        name: 'Budget',
        type: 'number',
      });
      expect(field.status).toBe(201);
    }
    await sql`INSERT INTO custom_field_values (workspace_id, organisation_id, key, value)
      VALUES (${broken.ws.uuid}, ${broken.organisation.uuid}, 'budget', '"lots"')`.execute(
      t.database.db,
    );
    const budget = {
      name: 'Big budget',
      filters: {
        operator: 'AND',
        conditions: [{ field: 'budget', comparison: 'greater_than', value: 5 }],
      },
      points: 50,
    };
    for (const { ws } of [broken, fine]) {
      const saved = await api('PUT', `/v1/workspaces/${ws.uuid}/scoring`, {
        rules: [budget],
        key_pages: [{ url_contains: '/pricing', points: 40 }],
      });
      expect(saved.status).toBe(200);
    }
    // Both are due for a full re-score; the broken one fails in every round.
    await until(async () => (await scoreOf(fine.ws)) === 40);
    // Its visits keep moving it, and it is scored again each time, the broken one beside it.
    await collector(t.url)(
      visit(
        fine.ws.tracking_script_id,
        [
          identify(`${SITE}/`, `eve@fine.example`, Date.now()),
          pageview(`${SITE}/demo`, Date.now()),
        ],
        { visitor: randomUUID() },
      ),
    );
    await api('PUT', `/v1/workspaces/${fine.ws.uuid}/scoring`, {
      rules: [],
      key_pages: [
        { url_contains: '/pricing', points: 40 },
        { url_contains: '/demo', points: 7 },
      ],
    });
    await until(async () => (await scoreOf(fine.ws)) === 47);
    expect(await scoreOf(broken.ws)).toBe(brokenBefore);
  });
});
