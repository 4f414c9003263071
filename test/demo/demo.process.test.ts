import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { person } from '../accounts/helpers.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { runFootfall } from '../helpers/process.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('footfall demo', () => {
  it('fills a workspace that the sessions and organisation endpoints then show', async () => {
    const result = await runFootfall(['demo', '--days', '5'], {
      DATABASE_URL: t.deps.config.databaseUrl as string,
      TOKEN_SECRET: t.deps.config.tokenSecret as string,
      DATA_DIR: t.deps.config.dataDir,
    });
    expect(result.code, result.stderr).toBe(0);
    const workspace = /Demo workspace ([0-9a-f-]{36})/.exec(result.stdout)?.[1];
    const token = /TOKEN=(\S+)/.exec(result.stdout)?.[1];
    expect(workspace).toBeDefined();
    expect(token).toBeDefined();
    expect(result.stdout).toContain('/organisations');

    const api = client(t.url, token);
    const organisations = await api(
      'GET',
      `/v1/workspaces/${workspace}/organisations?size=100&include_all=true`,
    );
    expect(organisations.status).toBe(200);
    expect(organisations.body.total).toBe(32);
    // Its maker owns five, one of them a customer (left out of the lead feed).
    const mine = await api('GET', `/v1/workspaces/${workspace}/organisations?owner=me`);
    expect(mine.body.total).toBe(4);
    const customers = await api('GET', `/v1/workspaces/${workspace}/organisations?status=customer`);
    expect(customers.body.data.map((o: { owner: { email: string } }) => o.owner.email)).toEqual([
      expect.stringContaining('@'),
    ]);
    const visited = organisations.body.data.filter(
      (o: { total_pageviews: number }) => o.total_pageviews > 0,
    );
    expect(visited.length).toBe(32);
    expect(visited[0]).toMatchObject({
      industry: expect.any(String),
      website: expect.stringMatching(/^https:\/\//),
    });
    expect(visited[0].visitor_locations.length).toBeGreaterThan(0);

    const from = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    const sessions = await api(
      'GET',
      `/v1/workspaces/${workspace}/sessions?date_from=${from}&size=1000`,
    );
    expect(sessions.status).toBe(200);
    expect(sessions.body.total).toBeGreaterThan(32);
    expect(sessions.body.total_organisations).toBe(32);
    const events = sessions.body.data.flatMap((s: { events: { event_type: string }[] }) =>
      s.events.map((e) => e.event_type),
    );
    expect(new Set(events)).toEqual(new Set(['pageview', 'download', 'form_submit', 'custom']));
  });

  it('POST /v1/workspaces/demo: a demo workspace of the caller’s own, five a day at most', async () => {
    const ana = await person(t, 'ana@example.com');
    const started = performance.now();
    const made = await ana.browser('POST', '/v1/workspaces/demo');
    const ms = performance.now() - started;
    expect(made.status).toBe(201);
    expect(ms).toBeLessThan(10_000);
    const workspace = made.body.data;
    expect(workspace.name).toBe('Demo: Acme Analytics');
    expect(workspace.tracking_script_snippet).toContain('<script');
    const organisations = await ana.api(
      'GET',
      `/v1/workspaces/${workspace.uuid}/organisations?size=100`,
    );
    expect(organisations.body.total).toBe(31); // and one customer
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const sessions = await ana.api(
      'GET',
      `/v1/workspaces/${workspace.uuid}/sessions?date_from=${from}&date_to=${today}`,
    );
    expect(sessions.body.total).toBeGreaterThan(32);
    // The caller owns it; nobody else sees it.
    const members = await ana.api('GET', `/v1/workspaces/${workspace.uuid}/users`);
    expect(members.body.data).toEqual([
      expect.objectContaining({ email: 'ana@example.com', role: 'owner' }),
    ]);
    const bo = await person(t, 'bo@example.com');
    expect((await bo.api('GET', `/v1/workspaces/${workspace.uuid}`)).status).toBe(404);
    // A burst of clicks makes four more, not six.
    const burst = await Promise.all(
      Array.from({ length: 6 }, () => ana.api('POST', '/v1/workspaces/demo')),
    );
    expect(burst.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 201, 429, 429]);
    const refused = burst.find((answer) => answer.status === 429);
    expect(refused?.body.message).toMatch(/5 demo workspaces a day/);
    const mine = await ana.api('GET', '/v1/workspaces?size=100');
    expect(mine.body.total).toBe(5);
  });

  it('counts the demos made in the last 24 hours, deleted or not, and says when another can be made', async () => {
    const cy = await person(t, 'cy@example.com');
    for (let n = 0; n < 5; n++) {
      const made = await cy.api('POST', '/v1/workspaces/demo');
      expect(made.status).toBe(201);
      expect((await cy.api('DELETE', `/v1/workspaces/${made.body.data.uuid}`)).status).toBe(204);
    }
    expect((await cy.api('GET', '/v1/workspaces')).body.total).toBe(0);
    const refused = await cy.api('POST', '/v1/workspaces/demo');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      message: expect.stringMatching(
        /^You can make at most 5 demo workspaces a day, deleted ones included\. Try again in 2[34] h( \d+ min)?, at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\.$/,
      ),
    });
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(86_400 - 120);
    expect(wait).toBeLessThanOrEqual(86_400);
    const at = /at (\S+ \S+) UTC/.exec(refused.body.message)?.[1] ?? '';
    expect(
      Math.abs(Date.parse(`${at.replace(' ', 'T')}Z`) - (Date.now() + wait * 1000)),
    ).toBeLessThan(120_000);
    // Another user's demos are their own.
    expect(
      (await (await person(t, 'di@example.com')).api('POST', '/v1/workspaces/demo')).status,
    ).toBe(201);
  });
});
