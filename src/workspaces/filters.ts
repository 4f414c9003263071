import ipaddr from 'ipaddr.js';

/** A workspace's ingest filters, compiled for the collector's hot path. */
export interface IngestFilters {
  /** Whether events from a page at this URL belong to the workspace. */
  acceptsPage(url: string): boolean;
  /** Whether the client address is one of the workspace's excluded ranges (its own office). */
  excludes(ip: string): boolean;
}

export const MAX_EXCLUDED_RANGES = 1_000;
export const MAX_HOSTNAMES = 100;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A hostname as the filters compare it (lower case, punycode, no trailing dot), `*.` before
 * a domain for all its subdomains, or `*` for any host; null when it is none of these.
 */
export function normaliseHostname(value: string): string | null {
  const text = value.trim().toLowerCase();
  if (text === '*') return text;
  const wildcard = text.startsWith('*.');
  const rest = (wildcard ? text.slice(2) : text).replace(/\.$/, '');
  let host: string;
  try {
    host = new URL(`http://${rest}`).hostname;
  } catch {
    return null;
  }
  const isIp = ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
  if (isIp) return wildcard ? null : host;
  if (host.length > 253 || !host.split('.').every((label) => LABEL.test(label))) return null;
  return wildcard ? `*.${host}` : host;
}

/** An address or CIDR range in its network form (`10.1.2.3` → `10.1.2.3/32`); null when invalid. */
export function normaliseRange(value: string): string | null {
  const text = value.trim();
  try {
    if (text.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(text);
      const family = address.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
      return `${family.networkAddressFromCIDR(text).toString()}/${bits}`;
    }
    const address = ipaddr.parse(text);
    return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    return null;
  }
}

/** The hosts a workspace takes events from unless told otherwise: its URL's host and www. twin. */
export function defaultHostnames(siteUrl: string): string[] {
  let host: string;
  try {
    host = new URL(siteUrl).hostname;
  } catch {
    return [];
  }
  if (ipaddr.isValid(host.replace(/^\[|\]$/g, '')) || !host.includes('.')) return [host];
  return [host, host.startsWith('www.') ? host.slice(4) : `www.${host}`];
}

/** The workspace's filters from its stored settings (null hostnames: the default pair). */
export function compileFilters(
  siteUrl: string,
  hostnames: string[] | null,
  excludedRanges: string[],
): IngestFilters {
  const hosts = new Set(hostnames ?? defaultHostnames(siteUrl));
  const anyHost = hosts.has('*');
  const wildcards = [...hosts].filter((h) => h.startsWith('*.')).map((h) => h.slice(1));
  const ranges = excludedRanges.flatMap((range) => {
    try {
      return [ipaddr.parseCIDR(range)];
    } catch {
      return [];
    }
  });
  return {
    acceptsPage(url) {
      if (anyHost) return true;
      let host: string;
      try {
        host = new URL(url).hostname.replace(/\.$/, '');
      } catch {
        return false;
      }
      return hosts.has(host) || wildcards.some((suffix) => host.endsWith(suffix));
    },
    excludes(ip) {
      if (ranges.length === 0 || !ipaddr.isValid(ip)) return false;
      const address = ipaddr.process(ip);
      return ranges.some(
        ([network, bits]) => network.kind() === address.kind() && address.match(network, bits),
      );
    },
  };
}
