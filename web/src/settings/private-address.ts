/**
 * Whether a URL's host is one only its own machine or network reaches: a snippet or link
 * naming it works while testing, and for nobody else once it is on a public site.
 */
export function isPrivateHost(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host.startsWith('[')) return privateIpv6(host.slice(1, -1));
  const octets = host.split('.');
  if (octets.length === 4 && octets.every((part) => /^\d{1,3}$/.test(part))) {
    const [a = 0, b = 0] = octets.map(Number);
    return (
      a === 127 ||
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      // Carrier-grade NAT (RFC 6598): shared, never reachable from outside.
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  // Names reserved for local use (RFC 6761, RFC 6762) and hosts without a domain.
  return (
    host === 'localhost' ||
    !host.includes('.') ||
    /\.(localhost|local|internal|lan|home\.arpa)$/.test(host)
  );
}

function privateIpv6(host: string): boolean {
  return (
    host === '::1' ||
    host === '::' ||
    /^f[cd][0-9a-f]{2}:/.test(host) ||
    /^fe[89ab][0-9a-f]:/.test(host) ||
    mappedIpv4(host)
  );
}

/** An IPv4 address written as IPv6: the URL parser turns ::ffff:10.0.0.1 into ::ffff:a00:1. */
function mappedIpv4(host: string): boolean {
  const groups = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!groups) return false;
  const [high, low] = [groups[1], groups[2]].map((group) => Number.parseInt(group ?? '0', 16));
  const dotted = [(high ?? 0) >> 8, (high ?? 0) & 255, (low ?? 0) >> 8, (low ?? 0) & 255];
  return isPrivateHost(`http://${dotted.join('.')}/`);
}
