import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './helpers/app.js';
import { runFootfall } from './helpers/process.js';

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
    const organisations = await api('GET', `/v1/workspaces/${workspace}/organisations?size=100`);
    expect(organisations.status).toBe(200);
    expect(organisations.body.total).toBe(32);
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
});
