import { describe, expect, it } from 'vitest';
import { UNKNOWN_LOCATION } from '../../src/identify/geo.js';
import { type SessionState, sessionize, type Visit } from '../../src/ingest/sessionizer.js';

const IDLE = 30 * 60_000;
const T0 = Date.parse('2026-05-01T10:00:00Z');
const visit: Visit = {
  workspaceId: 'w',
  visitorId: 'v',
  browser: 'Firefox',
  deviceType: 'desktop',
  location: UNKNOWN_LOCATION,
  organisationId: null,
};
const at = (minutes: number, type: 'pageview' | 'click' = 'pageview', referrer = '') => ({
  visit,
  event: {
    type,
    ts: new Date(T0 + minutes * 60_000),
    url: 'https://a.example/',
    data: { referrer },
  },
});
let ids = 0;
const newId = () => `s${++ids}`;

describe('sessionize', () => {
  it('splits a visitor’s events at gaps longer than the idle time', () => {
    const { sessions, sessionIds } = sessionize(
      undefined,
      [at(0), at(29), at(60), at(61)],
      IDLE,
      newId,
    );
    expect(sessions).toHaveLength(2);
    expect(new Set(sessionIds.slice(0, 2)).size).toBe(1);
    expect(sessionIds[2]).toBe(sessionIds[3]);
    expect(sessionIds[1]).not.toBe(sessionIds[2]);
    expect(sessions[0]?.endedAt.getTime()).toBe(T0 + 29 * 60_000);
  });

  it('extends the latest session within the idle time and keeps its first referrer', () => {
    const latest: SessionState = {
      id: 'old',
      workspaceId: 'w',
      visitorId: 'v',
      startedAt: new Date(T0),
      endedAt: new Date(T0 + 5 * 60_000),
      organisationId: 'org',
      referrer: 'https://first.example/',
      referrerAt: new Date(T0),
      source: 'first.example',
      location: UNKNOWN_LOCATION,
      browser: 'Firefox',
      deviceType: 'desktop',
      pageviews: 3,
    };
    const { sessions, sessionIds } = sessionize(
      latest,
      [at(20, 'pageview', 'https://later.example/')],
      IDLE,
      newId,
    );
    expect(sessionIds).toEqual(['old']);
    expect(sessions[0]).toMatchObject({
      id: 'old',
      referrer: 'https://first.example/',
      organisationId: 'org',
      endedAt: new Date(T0 + 20 * 60_000),
      source: 'first.example',
      pageviews: 4,
    });
  });

  it('takes the referrer of the first page view, even when it arrives late', () => {
    const { sessions } = sessionize(
      undefined,
      [
        at(0, 'click'),
        at(1, 'pageview', 'https://search.example/'),
        at(2, 'pageview', 'https://x/'),
      ],
      IDLE,
      newId,
    );
    expect(sessions[0]?.referrer).toBe('https://search.example/');
  });

  it('takes the source from the first page view, and carries it on over a self-referral', () => {
    const page = (minutes: number, url: string, referrer: string) => ({
      visit: { ...visit, siteDomains: ['a.example'] },
      event: {
        type: 'pageview' as const,
        ts: new Date(T0 + minutes * 60_000),
        url,
        data: { referrer },
      },
    });
    const { sessions } = sessionize(
      undefined,
      [
        page(0, 'https://a.example/?utm_source=Mail', 'https://news.ycombinator.com/'),
        // The tab idles past the timeout, then an internal link is clicked: same visit.
        page(40, 'https://a.example/pricing', 'https://www.a.example/'),
        page(80, 'https://a.example/', 'https://news.ycombinator.com/item?id=1'),
        page(120, 'https://a.example/', ''),
      ],
      IDLE,
      newId,
    );
    expect(sessions.map((session) => session.source)).toEqual([
      'mail',
      'mail',
      'ycombinator.com',
      'direct',
    ]);
  });

  it('says direct for a session without page views', () => {
    const { sessions } = sessionize(undefined, [at(0, 'click')], IDLE, newId);
    expect(sessions[0]?.source).toBe('direct');
  });
});
