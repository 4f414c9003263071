import { fieldError } from '../http/errors.js';

/** The tracked site's URL: absolute http(s) with a host, kept as given. */
export function parseSiteUrl(raw: string): string {
  const trimmed = raw.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw fieldError('url', 'The url field must be an absolute URL such as https://example.com.');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw fieldError('url', 'The url field must be an http or https URL.');
  }
  return trimmed;
}

/** A workspace's default name: its site's host. */
export const defaultWorkspaceName = (siteUrl: string) => new URL(siteUrl).host;
