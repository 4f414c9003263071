import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.js';

/** Which hops may set X-Forwarded-For, as TRUST_PROXY says: Fastify's and collect's. */
export type Trust = (address: string, hop: number) => boolean;

export function trustOf(setting: Config['trustProxy']): Trust {
  if (setting === true) return () => true;
  if (setting === false) return () => false;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return proxyAddr.compile(setting);
}

/** The client's address as Fastify's `request.ip` gives it, for a request served without it. */
export const forwardedIp = (request: IncomingMessage, trust: Trust): string =>
  proxyAddr(request, trust);

/**
 * The client's address for lookups (geolocation, IP ranges, network owner). A trusted
 * proxy's X-Forwarded-For is taken as sent, so `request.ip` may carry a port
 * (`203.0.113.7:5310`, `[2001:db8::1]:443`), a zone id (`fe80::1%eth0`) or a word
 * (`unknown`); we strip what can be stripped and otherwise use the socket's address.
 */
export function clientIp(request: FastifyRequest): string {
  return addressOf(request.ip, request.socket.remoteAddress);
}

/** The forwarded address when it holds one, else the socket's. */
export const addressOf = (forwarded: string | undefined, socket: string | undefined): string =>
  asIp(forwarded) ?? asIp(socket) ?? '0.0.0.0';

/** `text` as a plain IPv4 or IPv6 address, or null when it does not hold one. */
export function asIp(text: string | undefined): string | null {
  if (!text) return null;
  let address = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed?.[1]) address = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  address = address.replace(/%.*$/, '');
  // Four dotted decimals only: ipaddr also reads "1" or "0x7f.1", which PostgreSQL does not.
  if (isDottedQuad(address)) return address;
  return ipaddr.IPv6.isValid(address) ? address : null;
}

const DOTTED_QUAD = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;
// Checked here, on every collect request, rather than by ipaddr's general parser; a leading
// zero (octal to some readers) is refused, as ipaddr does.
const isDottedQuad = (text: string) =>
  DOTTED_QUAD.exec(text)
    ?.slice(1)
    .every((part) => Number(part) <= 255) ?? false;

/**
 * What one client is for a per-address rate limit: its IPv4 address, or its IPv6 address's
 * /64, the smallest block a subscriber is given; keyed per /128, one machine could step
 * through 2^64 addresses and never be limited.
 */
export function clientNetwork(request: FastifyRequest): string {
  return networkOf(clientIp(request));
}

/** `ip`'s network as clientNetwork gives it. */
export function networkOf(ip: string): string {
  if (isDottedQuad(ip)) return ip;
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

/** `http://address:port` of our end of a connection, as a client on it reaches us. */
export function serverOrigin(socket: Socket): string {
  const { localAddress, localPort } = socket;
  const scheme = 'encrypted' in socket ? 'https' : 'http';
  if (localAddress === undefined || !ipaddr.isValid(localAddress)) return `${scheme}://localhost`;
  const address = ipaddr.process(localAddress);
  const host = address.kind() === 'ipv6' ? `[${address.toString()}]` : address.toString();
  return `${scheme}://${host}:${localPort}`;
}
