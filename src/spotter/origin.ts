/**
 * Whether a page of `origin` belongs to the workspace's site: the same scheme, host and
 * port as its URL, the host also with or without a leading `www.`.
 */
export function isSiteOrigin(siteUrl: string, origin: string): boolean {
  let site: URL;
  let page: URL;
  try {
    site = new URL(siteUrl);
    page = new URL(origin);
  } catch {
    return false;
  }
  const bare = (host: string) => host.toLowerCase().replace(/^www\./, '');
  return (
    page.origin === origin &&
    page.protocol === site.protocol &&
    page.port === site.port &&
    bare(page.hostname) === bare(site.hostname)
  );
}
