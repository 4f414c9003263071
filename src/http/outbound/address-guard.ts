import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { abortable } from './abortable.js';

// Global unicast space (RFC 4291); IPv6 outside it is reserved, local or an IPv4 wrapper.
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
// The well-known NAT64 prefix (RFC 6052): the gateway forwards to the IPv4 in the last 32 bits.
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Decides whether Footfall may call a webhook address. Only globally routable unicast
 * addresses pass: private, loopback, link-local (cloud metadata at 169.254.169.254),
 * unique-local, carrier-grade NAT, reserved and documentation ranges do not. IPv4 inside
 * IPv6 is judged by the IPv4 when it is where the packet goes (mapped `::ffff:0:0/96`,
 * NAT64 `64:ff9b::/96`); the other wrappers (IPv4-compatible `::/96`, 6to4, Teredo,
 * `::ffff:0:0:0/96`, local NAT64) are refused whatever they carry.
 */
export function isPublicAddress(address: string): boolean {
  // ipaddr.js reads any dotted tail as mapped (`::1.2.3.4` as `::ffff:1.2.3.4`): spell it in hex.
  const hex = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (dotted, ...octets) =>
    address.includes(':') ? hexPair(octets.slice(0, 4).map(Number)) : dotted,
  );
  if (!ipaddr.isValid(hex)) return false;
  const parsed = ipaddr.process(hex);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.match(NAT64)) {
    const bytes = ipv6.toByteArray().slice(12);
    return ipaddr.fromByteArray(bytes).range() === 'unicast';
  }
  return ipv6.match(GLOBAL_UNICAST) && ipv6.range() === 'unicast';
}

function hexPair([a = 0, b = 0, c = 0, d = 0]: number[]): string {
  if ([a, b, c, d].some((octet) => octet > 255)) return 'invalid';
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export class UnsafeAddressError extends Error {}

/**
 * The addresses of the host of `url`: the host itself when it is an address, else what it
 * resolves to; throws UnsafeAddressError when it does not resolve.
 */
export async function addressesOf(
  url: URL,
  resolve: Resolver = systemResolver,
): Promise<[string, ...string[]]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) return [host];
  const addresses = await resolve(host).catch(() => []);
  const [first, ...others] = addresses;
  if (first === undefined) throw new UnsafeAddressError(`The host ${host} could not be resolved.`);
  return [first, ...others];
}

/**
 * The addresses of the host of `url`, every one of them public; throws UnsafeAddressError
 * otherwise. Callers connect to a returned address, never look it up again. The message
 * never names what a host resolved to: that would map a tenant's way inside.
 */
export async function publicAddressesOf(url: URL, resolve: Resolver = systemResolver) {
  const addresses = await addressesOf(url, resolve);
  if (!addresses.every(isPublicAddress)) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    throw new UnsafeAddressError(
      ipaddr.isValid(host)
        ? `The address ${host} is not a public address.`
        : `The host ${host} resolves to a non-public address.`,
    );
  }
  return addresses;
}

/**
 * The address to connect to for `url`, checked: https and public addresses only, unless
 * `allowPrivate` (ALLOW_PRIVATE_WEBHOOKS); the lookup counts against `signal`.
 */
export async function checkedAddress(
  url: URL,
  options: { allowPrivate: boolean; resolve?: Resolver; signal: AbortSignal },
): Promise<string> {
  const resolve = options.resolve ?? systemResolver;
  let addresses: Promise<[string, ...string[]]>;
  if (options.allowPrivate) {
    addresses = addressesOf(url, resolve);
  } else {
    if (url.protocol !== 'https:') throw new UnsafeAddressError('The URL is not https.');
    addresses = publicAddressesOf(url, resolve);
  }
  const [address] = await abortable(addresses, options.signal);
  return address;
}
