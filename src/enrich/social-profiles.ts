import { getDomain } from 'tldts';
import type { SocialProfile } from '../db/schema.js';

/**
 * How each network's profile addresses read: the handle from the path, or null when the
 * link is not a profile (a share button, a post, a search). Paths arrive without empty parts.
 */
const NETWORKS: Record<string, { domains: string[]; handle(path: string[]): string | null }> = {
  linkedin: {
    domains: ['linkedin.com'],
    handle: ([kind, name]) =>
      kind && name && ['company', 'school', 'showcase', 'in'].includes(kind) ? name : null,
  },
  twitter: {
    domains: ['twitter.com', 'x.com'],
    handle: ([name, ...rest]) =>
      name &&
      rest.length === 0 &&
      /^[A-Za-z0-9_]{1,15}$/.test(name) &&
      !['intent', 'share', 'home', 'search', 'hashtag', 'i', 'explore', 'login', 'tos'].includes(
        name.toLowerCase(),
      )
        ? name
        : null,
  },
  facebook: {
    domains: ['facebook.com', 'fb.com'],
    handle: ([name, ...rest]) => {
      if (name === 'pages') return rest.at(-1) ?? null;
      const reserved = ['sharer', 'share', 'dialog', 'plugins', 'tr', 'login', 'events', 'watch'];
      if (!name || name.includes('.php') || reserved.includes(name.toLowerCase())) return null;
      return name;
    },
  },
  instagram: {
    domains: ['instagram.com'],
    handle: ([name, ...rest]) =>
      name && rest.length === 0 && !['p', 'reel', 'explore', 'accounts', 'stories'].includes(name)
        ? name
        : null,
  },
  youtube: {
    domains: ['youtube.com'],
    handle: ([first, second]) => {
      if (first?.startsWith('@')) return first;
      return first && second && ['channel', 'c', 'user'].includes(first) ? second : null;
    },
  },
  github: {
    domains: ['github.com'],
    handle: ([name, second]) => {
      if (name === 'orgs') return second ?? null;
      const reserved = ['features', 'about', 'pricing', 'login', 'sponsors', 'topics', 'explore'];
      return name && !reserved.includes(name) ? name : null;
    },
  },
  xing: {
    domains: ['xing.com'],
    handle: ([kind, name]) =>
      kind && name && ['pages', 'companies', 'profile'].includes(kind) ? name : null,
  },
};

/** The profile a link points at, `{name, handle, url}`, or null when it is none of ours. */
export function socialProfile(href: string): SocialProfile | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const domain = getDomain(url.hostname);
  for (const [name, network] of Object.entries(NETWORKS)) {
    if (!domain || !network.domains.includes(domain)) continue;
    const path = url.pathname.split('/').filter(Boolean).map(safeDecode);
    const handle = network.handle(path);
    if (!handle || handle.length > 100) return null;
    // The address without tracking parameters or fragments, and no trailing slash.
    const clean = `https://${url.hostname}${url.pathname.replace(/\/+$/, '')}`;
    return { name, handle, url: clean.slice(0, 500) };
  }
  return null;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** One profile per network, the first given winning (schema.org `sameAs` before links). */
export function distinctProfiles(hrefs: string[], max = 20): SocialProfile[] {
  const byNetwork = new Map<string, SocialProfile>();
  for (const href of hrefs) {
    const profile = socialProfile(href);
    if (profile && !byNetwork.has(profile.name)) byNetwork.set(profile.name, profile);
    if (byNetwork.size >= max) break;
  }
  return [...byNetwork.values()];
}
