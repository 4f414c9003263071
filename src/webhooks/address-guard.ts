import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Decides whether Footfall may call a webhook address. Only globally routable unicast
 * addresses pass: private, loopback, link-local (cloud metadata at 169.254.169.254),
 * unique-local, carrier-grade NAT, reserved and documentation ranges do not, and neither
 * do IPv4 addresses hidden in IPv6 (mapped, NAT64, 6to4, Teredo).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export class UnsafeAddressError extends Error {}

/**
 * Resolves the host of `url` and returns its addresses, every one of them public; throws
 * UnsafeAddressError otherwise. Callers connect to a returned address, never look it up again.
 */
export async function publicAddressesOf(url: URL, resolve: Resolver = systemResolver) {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new UnsafeAddressError(`The host ${host} could not be resolved.`);
    }
  }
  const refused = addresses.find((address) => !isPublicAddress(address));
  if (addresses.length === 0 || refused) {
    throw new UnsafeAddressError(
      `The host ${host} resolves to ${refused ?? 'nothing'}, which is not a public address.`,
    );
  }
  return addresses;
}
