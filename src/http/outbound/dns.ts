import { Resolver as DnsClient } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { Config } from '../../config.js';
import { type Resolver, systemResolver } from './address-guard.js';

/** The DNS questions Footfall asks (contract §16), on DNS_SERVERS or the system's resolvers. */
export interface Dns {
  /** PTR names of an address; [] when it has none. */
  reverse(address: string): Promise<string[]>;
  /** A and AAAA addresses of a name; [] when it has none. */
  addresses(host: string): Promise<string[]>;
  /** The same as an address-guard resolver, for outbound requests to a name. */
  resolver: Resolver;
}

const NO_ANSWER = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'ESERVFAIL', 'EREFUSED']);

const orNothing = async (asking: Promise<string[]>): Promise<string[]> => {
  try {
    return await asking;
  } catch (error) {
    if (NO_ANSWER.has((error as NodeJS.ErrnoException).code ?? '')) return [];
    throw error;
  }
};

/** The name a PTR question asks: `4.3.2.1.in-addr.arpa`, or the nibbles under `ip6.arpa`. */
export function reverseName(address: string): string {
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return `${parsed.toByteArray().reverse().join('.')}.in-addr.arpa`;
  const nibbles = parsed
    .toByteArray()
    .flatMap((byte) => [byte >> 4, byte & 15])
    .map((nibble) => nibble.toString(16));
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}

/**
 * DNS on the configured servers: each question times out after `timeoutMs` (one retry),
 * so a dead server costs a bounded wait. Without DNS_SERVERS, names of outbound requests
 * are resolved as the operating system does (hosts file included).
 */
export function configuredDns(config: Pick<Config, 'dnsServers'>, timeoutMs = 2_000): Dns {
  const client = new DnsClient({ timeout: timeoutMs, tries: 2 });
  if (config.dnsServers) client.setServers(config.dnsServers);
  const addresses = async (host: string) => {
    const [v4, v6] = await Promise.all([
      orNothing(client.resolve4(host)),
      orNothing(client.resolve6(host)),
    ]);
    return [...v4, ...v6];
  };
  return {
    // resolvePtr, not reverse(): reverse() reports a server that never answered as ENOTFOUND.
    reverse: (address) => orNothing(client.resolvePtr(reverseName(address))),
    addresses,
    resolver: config.dnsServers ? addresses : systemResolver,
  };
}
