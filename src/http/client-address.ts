import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { clientIp } from './client-ip.js';

/**
 * What one client is for a per-address rate limit: its IPv4 address, or its IPv6 address's
 * /64, the smallest block a subscriber is given; keyed per /128, one machine could step
 * through 2^64 addresses and never be limited.
 */
export function clientNetwork(request: FastifyRequest): string {
  const address = ipaddr.process(clientIp(request));
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
