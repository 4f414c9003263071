import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { pageview } from '../helpers/collect.js';
import { type Received, startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';
import { operatorWith, startWebhookApp } from '../helpers/webhooks.js';

// A session's `source` (contract §13) as a client sees it: in the sessions API and in the
// webhook bodies, for visits that came from a campaign link, a referring site, nowhere, and
// from the site itself.

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let site: Awaited<ReturnType<typeof operatorWith>>;

beforeAll(async () => {
  t = await startWebhookApp();
  receiver = await startReceiver();
  site = await operatorWith(t, receiver.url, 'event');
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const DAY = '2026-03-10';
const at = (time: string) => Date.parse(`${DAY}T${time}Z`);

/** The visitor's sessions of DAY as the sessions API lists them, oldest first. */
async function sessionsOf(visitor: string) {
  const answer = await site.api(
    'GET',
    `/v1/workspaces/${site.workspace.uuid}/sessions?date=${DAY}&visitor_uuid=${visitor}`,
  );
  expect(answer.status).toBe(200);
  return (answer.body.data as { source: string; started_at: string }[]).reverse();
}

const sourcesOf = async (visitor: string) =>
  (await sessionsOf(visitor)).map((session) => session.source);

describe('Session.source', () => {
  it('is the landing page’s utm_source, trimmed and in lower case, before any referrer', async () => {
    const visitor = randomUUID();
    await site.send(
      [
        pageview(
          'https://site.example/?utm_source=%20LinkedIn%20&utm_medium=cpc',
          at('09:00:00'),
          'https://news.ycombinator.com/',
        ),
        // Later page views of the session change nothing.
        pageview('https://site.example/?utm_source=other', at('09:01:00'), 'https://x.org/'),
      ],
      visitor,
    );
    expect(await sourcesOf(visitor)).toEqual(['linkedin']);

    // The same session in a webhook body.
    const bodies = () =>
      receiver.received
        .map((received: Received) => JSON.parse(received.body))
        .filter((body) => body.session?.visitor_uuid === visitor);
    await until(() => bodies().length >= 2);
    for (const body of bodies()) expect(body.session.source).toBe('linkedin');
  });

  it('is the referrer’s registrable domain without utm_source', async () => {
    const visitor = randomUUID();
    await site.send(
      [
        pageview(
          'https://site.example/a?ref=1',
          at('10:00:00'),
          'https://news.ycombinator.com/item?id=1',
        ),
      ],
      visitor,
    );
    expect(await sourcesOf(visitor)).toEqual(['ycombinator.com']);
  });

  it('is direct without either', async () => {
    const visitor = randomUUID();
    await site.send([pageview('https://site.example/', at('11:00:00'))], visitor);
    expect(await sourcesOf(visitor)).toEqual(['direct']);
  });

  it('takes the first page view’s, even when it arrives after a later one', async () => {
    const visitor = randomUUID();
    await site.send(
      [pageview('https://site.example/b', at('12:05:00'), 'https://bing.com/')],
      visitor,
    );
    await site.send(
      [pageview('https://site.example/a', at('12:00:00'), 'https://duckduckgo.com/')],
      visitor,
    );
    expect(await sourcesOf(visitor)).toEqual(['duckduckgo.com']);
  });

  it('carries a visit on over a self-referral (a tab idle past the session timeout)', async () => {
    const visitor = randomUUID();
    await site.send(
      [pageview('https://site.example/', at('13:00:00'), 'https://www.google.co.uk/search')],
      visitor,
    );
    // An hour later a link on the open page is followed: a new session, referred by the site.
    await site.send(
      [pageview('https://site.example/pricing', at('14:00:00'), 'https://www.site.example/')],
      visitor,
    );
    expect(await sourcesOf(visitor)).toEqual(['google.co.uk', 'google.co.uk']);

    // Without an earlier session, the site referring to itself is direct.
    const newcomer = randomUUID();
    await site.send(
      [pageview('https://site.example/pricing', at('15:00:00'), 'https://site.example/')],
      newcomer,
    );
    expect(await sourcesOf(newcomer)).toEqual(['direct']);
  });
});
