import { describe, expect, it } from 'vitest';
import {
  DIRECT,
  MAX_SOURCE_LENGTH,
  registrableDomain,
  siteDomains,
  trafficSource,
} from '../../src/ingest/source.js';

const SITE = ['acme.com'];

describe('trafficSource', () => {
  it('takes utm_source of the landing page first: trimmed, lower case, cut', () => {
    expect(
      trafficSource('https://acme.com/?utm_source=%20News+Letter%20', 'https://x.org/', SITE),
    ).toBe('news letter');
    const long = 'a'.repeat(MAX_SOURCE_LENGTH + 50);
    expect(trafficSource(`https://acme.com/?utm_source=${long}`, '', SITE)).toHaveLength(
      MAX_SOURCE_LENGTH,
    );
    // Cut by characters, never inside a surrogate pair.
    const emoji = '😀'.repeat(MAX_SOURCE_LENGTH + 1);
    expect(
      trafficSource(`https://acme.com/?utm_source=${encodeURIComponent(emoji)}`, '', SITE),
    ).toBe('😀'.repeat(MAX_SOURCE_LENGTH));
  });

  it('falls back to the referrer’s registrable domain when utm_source is absent or blank', () => {
    expect(trafficSource('https://acme.com/', 'https://news.ycombinator.com/item?id=1', SITE)).toBe(
      'ycombinator.com',
    );
    expect(trafficSource('https://acme.com/?utm_source=+', 'https://WWW.Google.co.uk/', SITE)).toBe(
      'google.co.uk',
    );
    expect(trafficSource('https://acme.com/', 'https://someone.github.io/post', SITE)).toBe(
      'someone.github.io',
    );
    expect(trafficSource('https://acme.com/', 'android-app://com.google.android.gm/', SITE)).toBe(
      'com.google.android.gm',
    );
  });

  it('says direct without either, or with a referrer that is no web page', () => {
    expect(trafficSource('https://acme.com/', '', SITE)).toBe(DIRECT);
    expect(trafficSource('https://acme.com/', 'not a url', SITE)).toBe(DIRECT);
    expect(trafficSource('https://acme.com/', 'file:///C:/page.html', SITE)).toBe(DIRECT);
  });

  it('gives no source for a referrer on the site itself', () => {
    expect(trafficSource('https://acme.com/a', 'https://acme.com/b', SITE)).toBeNull();
    expect(trafficSource('https://acme.com/a', 'https://blog.acme.com/', SITE)).toBeNull();
    // The landing page's own domain counts even when the site URL names another.
    expect(trafficSource('https://acme.de/a', 'https://www.acme.de/', SITE)).toBeNull();
    expect(
      trafficSource(
        'https://acme.com/a',
        'https://acme.de/',
        siteDomains('https://acme.com', ['*.acme.de']),
      ),
    ).toBeNull();
  });
});

describe('siteDomains', () => {
  it('names the site URL’s and the accepted hostnames’ domains, not "any host"', () => {
    expect(siteDomains('https://www.acme.com/', ['*', '*.shop.acme.io', 'acme.com'])).toEqual([
      'acme.com',
      'acme.io',
    ]);
    expect(registrableDomain('LOCALHOST.')).toBe('localhost');
  });
});
