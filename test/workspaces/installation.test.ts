import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { person } from '../accounts/helpers.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { until } from '../helpers/wait.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ INGEST_TALLY_MS: '50', TRUST_PROXY: '127.0.0.1' });
});
afterAll(() => t.close());

interface Installation {
  last_event_at: string | null;
  events_24h: number;
  dropped_24h: { total: number; reasons: Record<string, number> };
}

describe('GET /v1/workspaces/{ws}/installation', () => {
  it('waits for the first event, then counts what was stored and what was dropped, and why', async () => {
    const owner = await person(t, 'owner@example.com');
    const workspace = (
      await owner.api('POST', '/v1/workspaces', { url: 'https://www.shop.example' })
    ).body.data;
    const status = async () =>
      (await owner.api('GET', `/v1/workspaces/${workspace.uuid}/installation`)).body
        .data as Installation;
    expect(await status()).toEqual({
      last_event_at: null,
      events_24h: 0,
      dropped_24h: { total: 0, reasons: {} },
    });

    // Counts older than two days are neither shown nor kept (the next write removes them).
    await t.database.db
      .insertInto('workspace_ingest_hours')
      .values({
        workspace_id: workspace.uuid,
        hour: new Date(Date.now() - 3 * 86_400_000),
        reason: 'bot',
        events: 7,
        last_at: new Date(Date.now() - 3 * 86_400_000),
      })
      .execute();
    expect(await status()).toEqual({
      last_event_at: null,
      events_24h: 0,
      dropped_24h: { total: 0, reasons: {} },
    });

    const collect = collector(t.url);
    const now = Date.now();
    // A bot, then a page of someone else's site that copied the snippet: both dropped.
    await collect(
      visit(workspace.tracking_script_id, [pageview('https://www.shop.example/', now)]),
      {
        'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      },
    );
    await collect(
      visit(workspace.tracking_script_id, [
        pageview('https://copycat.example/', now),
        pageview('https://copycat.example/about', now + 1000),
      ]),
    );
    await until(async () => (await status()).dropped_24h.total === 3);
    const dropped = await status();
    expect(dropped.events_24h).toBe(0);
    expect(dropped.dropped_24h.reasons).toEqual({ bot: 1, foreign_hostname: 2 });
    expect(dropped.last_event_at).not.toBeNull();
    const kept = await t.database.db
      .selectFrom('workspace_ingest_hours')
      .select('events')
      .where('workspace_id', '=', workspace.uuid)
      .where('hour', '<', new Date(Date.now() - 2 * 86_400_000))
      .execute();
    expect(kept).toEqual([]);

    // A real visit on the site itself is stored.
    const answer = await collect(
      visit(workspace.tracking_script_id, [pageview('https://shop.example/pricing', now + 2000)]),
      { 'x-forwarded-for': '81.2.69.160' },
    );
    expect(answer.status).toBe(202);
    await until(async () => (await status()).events_24h === 1);
    const stored = await status();
    expect(stored.dropped_24h.total).toBe(3);
    expect(Date.parse(stored.last_event_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(dropped.last_event_at ?? ''),
    );

    // Members read it; other people's workspaces are not there.
    const member = await person(t, 'member@example.com');
    const invite = await owner.api('POST', `/v1/workspaces/${workspace.uuid}/users/invite`, {
      email: member.email,
    });
    const secret = String(invite.body.data.invite_link).split('/').pop();
    expect((await member.browser('POST', `/auth/invites/${secret}/accept`, {})).status).toBe(204);
    const seen = await member.api('GET', `/v1/workspaces/${workspace.uuid}/installation`);
    expect(seen.status).toBe(200);
    expect(seen.body.data).toEqual(stored);
    const stranger = await person(t, 'stranger@example.com');
    expect(
      (await stranger.api('GET', `/v1/workspaces/${workspace.uuid}/installation`)).status,
    ).toBe(404);
    expect(
      (await client(t.url)('GET', `/v1/workspaces/${workspace.uuid}/installation`)).status,
    ).toBe(401);
  });
});
