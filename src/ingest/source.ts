import { getDomain } from 'tldts';

/** A session's source when neither its landing page nor its referrer names one. */
export const DIRECT = 'direct';

/** Longer `utm_source` values are cut: a source is a label, not a place to store text. */
export const MAX_SOURCE_LENGTH = 100;

/**
 * The registrable domain of a host (`news.ycombinator.com` → `ycombinator.com`). Private
 * suffixes count (`acme.github.io` stays whole: github.io is not one site); an address or
 * a host without a public suffix (`localhost`) is its own domain.
 */
export function registrableDomain(host: string): string {
  const name = host.toLowerCase().replace(/\.$/, '');
  return getDomain(name, { allowPrivateDomains: true }) ?? name;
}

/**
 * The registrable domains that are the site itself: its URL's and those of its accepted
 * hostnames (`*.acme.com` → `acme.com`; `*`, any host, names none).
 */
export function siteDomains(siteUrl: string, hostnames: readonly string[] | null): string[] {
  const hosts: string[] = [];
  try {
    hosts.push(new URL(siteUrl).hostname);
  } catch {
    // A workspace URL is validated when saved; an unreadable one names nothing.
  }
  for (const host of hostnames ?? []) {
    if (host !== '*') hosts.push(host.replace(/^\*\./, ''));
  }
  return [...new Set(hosts.filter((host) => host !== '').map(registrableDomain))];
}

const parse = (url: string): URL | null => {
  try {
    return new URL(url);
  } catch {
    return null;
  }
};

/** `utm_source` as a label: trimmed, lower case, at most MAX_SOURCE_LENGTH characters. */
function utmSource(landing: URL | null): string {
  const value = landing?.searchParams.get('utm_source')?.trim().toLowerCase() ?? '';
  // By code points, so a cut never splits a surrogate pair.
  return Array.from(value).slice(0, MAX_SOURCE_LENGTH).join('').trim();
}

/**
 * What a session's first page view says about where the visit came from (contract §13): the
 * landing page's `utm_source`, else the referrer's registrable domain, else DIRECT. A
 * referrer on the site itself (same registrable domain as the landing page, the site URL or
 * an accepted hostname) is no source: the visitor was already on the site, e.g. a tab left
 * idle past the session timeout and then clicked. Then the answer is null, and the caller
 * carries on the visitor's previous source, as analytics products do, or says DIRECT.
 */
export function trafficSource(
  landingUrl: string,
  referrer: string,
  ownDomains: readonly string[],
): string | null {
  const landing = parse(landingUrl);
  const utm = utmSource(landing);
  if (utm !== '') return utm;
  const from = parse(referrer.trim());
  if (!from) return DIRECT;
  // Apps (Gmail, LinkedIn on Android) send `android-app://<package>/`: the package names them.
  if (from.protocol === 'android-app:' && from.hostname !== '') return from.hostname.toLowerCase();
  if ((from.protocol !== 'http:' && from.protocol !== 'https:') || from.hostname === '') {
    return DIRECT;
  }
  const domain = registrableDomain(from.hostname);
  const own = landing ? [registrableDomain(landing.hostname), ...ownDomains] : ownDomains;
  return own.includes(domain) ? null : domain;
}
