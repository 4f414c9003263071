import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseCollectBody } from '../../src/ingest/body.js';

const body = (url: string, referrer: string) => ({
  tracking_script_id: 'script',
  anonymous_id: randomUUID(),
  session_uuid: randomUUID(),
  events: [{ type: 'pageview', ts: Date.now(), url, referrer, title: 'Pricing' }],
});
const stored = (url: string, referrer = '') => {
  const [event] = parseCollectBody(body(url, referrer), new Date()).events;
  return { url: event?.url, referrer: event?.data.referrer };
};

describe('addresses in a collect body', () => {
  it('are redacted every time they come, however often the same address repeats', () => {
    const secret = 'https://www.example.com/reset?token=abc123&page=2#access_token=xyz';
    for (let i = 0; i < 3; i++) {
      expect(stored(secret, secret)).toEqual({
        url: 'https://www.example.com/reset?page=2',
        referrer: 'https://www.example.com/reset?page=2',
      });
    }
  });

  it('are kept as sent when nothing in them is sensitive, the second time as the first', () => {
    const clean = 'https://www.example.com/pricing?utm_source=newsletter&plan=team';
    expect(stored(clean, 'https://www.google.com/')).toEqual({
      url: clean,
      referrer: 'https://www.google.com/',
    });
    expect(stored(clean, 'https://www.google.com/')).toEqual({
      url: clean,
      referrer: 'https://www.google.com/',
    });
  });

  it('keep a hash route, filtered, and drop any other fragment', () => {
    const route = 'https://app.example.com/#/orders?session_id=1&tab=open';
    expect(stored(route).url).toBe('https://app.example.com/#/orders?tab=open');
    expect(stored(route).url).toBe('https://app.example.com/#/orders?tab=open');
  });
});
