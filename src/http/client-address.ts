import ipaddr from 'ipaddr.js';

/**
 * What one client is for a per-address rate limit: an IPv4 address, or an IPv6 address's
 * /64, the smallest block a subscriber is given; keyed per /128, one machine could step
 * through 2^64 addresses and never be limited. Text that is no address stays as it is.
 */
export function clientNetwork(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const prefix = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}

/** Whether an address (a socket's, never a header's) is this machine's loopback. */
export function isLoopback(address: string | undefined): boolean {
  return address !== undefined && ipaddr.isValid(address)
    ? ipaddr.process(address).range() === 'loopback'
    : false;
}
