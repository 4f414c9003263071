import ipaddr from 'ipaddr.js';
import { getDomain } from 'tldts';
import type { Dns } from '../http/outbound/dns.js';
import type { NetworkKind } from '../identify/network-owner.js';
import {
  displayName,
  domainLabel,
  isProviderDomain,
  legalForm,
  lookupRules,
  nameKey,
  plainText,
} from './names.js';
import type { Signal } from './signals.js';
import { maskAddress } from './written-address.js';

/** What the caller knows about the visitor's network when it asks for the PTR name. */
export interface ReverseDnsContext {
  /** Registrable domains of the network's provider: the network owner's domain, its autnum domain. */
  providerDomains?: string[];
  /** The network owner's name (the AS name), e.g. `VODAFONE-DE Vodafone GmbH`. */
  networkName?: string | null;
  /** The network owner's kind, when it was judged. */
  networkKind?: NetworkKind | null;
}

/** The DNS did not answer (a timeout, a dead server): unlike "no PTR", worth asking again. */
export class DnsLookupFailed extends Error {
  constructor(cause: unknown) {
    super(`DNS lookup failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

const MAX_NAMES = 3;

/**
 * The reverse-DNS signal of contract §16: the address's PTR names, forward-confirmed (a name
 * counts only when its A/AAAA records hold the address again, since anyone can write any
 * PTR for their own addresses), judged by `judgeHostName`. Throws DnsLookupFailed when the
 * DNS did not answer; a name-less address is verdict `none`, which may be cached.
 */
export async function reverseDnsSignal(
  address: string,
  dns: Dns,
  context: ReverseDnsContext = {},
): Promise<Signal> {
  const visitor = normalised(address);
  const names = await asked(() => dns.reverse(address));
  const hosts = [...new Set(names.map(cleanHost).filter(Boolean))].slice(0, MAX_NAMES);
  if (hosts.length === 0) return { signal: 'reverse_dns', value: '', verdict: 'none' };
  for (const host of hosts) {
    const forward = await asked(() => dns.addresses(host));
    if (forward.some((other) => normalised(other) === visitor)) {
      return judgeHostName(host, address, context);
    }
  }
  const [first = ''] = hosts;
  return {
    signal: 'reverse_dns',
    value: maskAddress(first, address).masked,
    verdict: 'unconfirmed',
  };
}

async function asked(question: () => Promise<string[]>): Promise<string[]> {
  try {
    return await question();
  } catch (error) {
    throw new DnsLookupFailed(error);
  }
}

const cleanHost = (name: string): string => name.trim().toLowerCase().replace(/\.$/, '');

/** An address in one spelling, so that `2001:db8::7` and `2001:0db8:0:0:0:0:0:7` compare equal. */
function normalised(address: string): string {
  try {
    return ipaddr.process(address).toNormalizedString();
  } catch {
    return address;
  }
}

/**
 * Judges a forward-confirmed host name (contract §16). A provider's name: the address written
 * in, a pool word, a provider's domain (listed, or the network's own). A provider's name with
 * a customer's name in a label is `weak` for that name. Any other name names the organisation
 * of its registrable domain, except on a hosting network, where a server's name is only weak
 * evidence of who visits from it.
 */
export function judgeHostName(
  host: string,
  address: string,
  context: ReverseDnsContext = {},
): Signal {
  const { masked, written } = maskAddress(host, address);
  const provider = (): Signal => ({ signal: 'reverse_dns', value: masked, verdict: 'provider' });
  if (written) return provider();
  const domain = getDomain(host);
  if (!domain) return { signal: 'reverse_dns', value: masked, verdict: 'none' };
  const below = domain === host ? [] : host.slice(0, -domain.length - 1).split('.');
  const tokens = below.flatMap(labelTokens);
  const pooled = tokens.some((token) => lookupRules.poolWords.has(token));
  if (pooled || isProvidersName(host, domain, context)) {
    // A customer line may carry pool words (cust, kunde): only a legal form names someone there.
    const customer = customerLabel(below, pooled);
    if (!customer) return provider();
    return { signal: 'reverse_dns', value: masked, verdict: 'weak', name: customer };
  }
  const name = displayName(domainLabel(domain));
  const verdict = context.networkKind === 'hosting' ? 'weak' : 'organisation';
  return { signal: 'reverse_dns', value: masked, verdict, domain, name };
}

/** Whether the name lies under a provider's domain: listed, the network's own, or its owner's name. */
function isProvidersName(host: string, domain: string, context: ReverseDnsContext): boolean {
  // A business network's own domain is the business's, not a provider's.
  const ownDomains = context.networkKind === 'business' ? [] : (context.providerDomains ?? []);
  if (isProviderDomain(host, ownDomains)) return true;
  if (!context.networkName || context.networkKind === 'business' || !context.networkKind) {
    return false;
  }
  // example-carrier.de under AS "EXAMPLE-CARRIER Example Carrier GmbH", vodafone-ip.de under
  // "VODAFONE-DE Vodafone GmbH": the provider's own domain, listed or not. The brand leads
  // both names; a word elsewhere ("online", "net") would match too much.
  const label = domainLabel(domain);
  const key = nameKey(label);
  if (key.length >= 4 && nameKey(context.networkName).includes(key)) return true;
  const [brand = ''] = plainText(label).split(' ');
  const [ownerBrand = ''] = plainText(context.networkName).split(' ');
  return brand.length >= 5 && brand === ownerBrand;
}

/** The tokens of a label: its hyphen parts and their letter runs (`dip0` → `dip0`, `dip`). */
function labelTokens(label: string): string[] {
  return label
    .split(/[-_]+/)
    .filter(Boolean)
    .flatMap((part) => [part, ...(part.match(/[a-z]+/g) ?? [])]);
}

/**
 * A customer's name in a provider's host name: a label that is not the address, gear or an
 * access word and reads as a name, either with a legal form (`acme-gmbh`) or, unless
 * `legalFormOnly`, beside a word of business lines (`acme.static.example-isp.net`).
 */
function customerLabel(labels: string[], legalFormOnly: boolean): string | undefined {
  const tokens = labels.flatMap(labelTokens);
  const businessLine =
    !legalFormOnly && tokens.some((token) => lookupRules.businessWords.has(token));
  for (const label of labels) {
    const parts = label
      .split(/[-_]+/)
      .filter((part) => part && !/\d/.test(part) && part !== '*')
      .filter((part) => !lookupRules.gearWords.has(part) && !lookupRules.accessWords.has(part))
      .filter((part) => !lookupRules.businessWords.has(part));
    const name = parts.join(' ');
    if (parts.length === 0 || name.replace(/ /g, '').length < 4) continue;
    if (legalForm(name) || businessLine) return displayName(name);
  }
  return undefined;
}
