import type { Socket } from 'node:net';
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

/** `http://address:port` of our end of a connection, as a client on it reaches us. */
export function serverOrigin(socket: Socket): string {
  const { localAddress, localPort } = socket;
  const scheme = 'encrypted' in socket ? 'https' : 'http';
  if (localAddress === undefined || !ipaddr.isValid(localAddress)) return `${scheme}://localhost`;
  const address = ipaddr.process(localAddress);
  const host = address.kind() === 'ipv6' ? `[${address.toString()}]` : address.toString();
  return `${scheme}://${host}:${localPort}`;
}
