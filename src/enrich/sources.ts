import ipaddr from 'ipaddr.js';
import type { Config } from '../config.js';
import { configuredDns } from '../http/outbound/dns.js';
import type { NetworkJudgement, NetworkJudgements } from '../identify/network-owner.js';
import type { LookupCaches, RegisteredNetwork } from './cache.js';
import { RateLimited } from './host-gate.js';
import type { OnlineSources } from './lookups.js';
import { configuredRdap, RdapError, type RdapNetwork } from './rdap.js';
import { autnumDomain, parentOf, registrationSignal } from './registration.js';
import { reverseDnsSignal } from './reverse-dns.js';

// A registry that answers 429 without Retry-After is left alone this long.
const DEFAULT_REST_MS = 60_000;

/** The registration's range: its start and end, else its first CIDR. */
function rangeOf(record: RdapNetwork): { start: string; end: string } | null {
  if (record.startAddress && record.endAddress) {
    return { start: record.startAddress, end: record.endAddress };
  }
  const [cidr] = record.cidrs;
  if (!cidr || !ipaddr.isValidCIDR(cidr)) return null;
  const family = ipaddr.parseCIDR(cidr)[0].kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
  return {
    start: family.networkAddressFromCIDR(cidr).toString(),
    end: family.broadcastAddressFromCIDR(cidr).toString(),
  };
}

/** A 429 becomes a rest for that registry; anything else is a failed lookup. */
async function asked<T>(question: () => Promise<T>): Promise<T> {
  try {
    return await question();
  } catch (error) {
    if (error instanceof RdapError && error.status === 429) {
      throw new RateLimited(error.retryAfterMs ?? DEFAULT_REST_MS);
    }
    throw error;
  }
}

/**
 * The judges of enrich/ over the configured DNS and RDAP clients, with what the caches
 * know of the network as their context: the network owner's judgement and, for a
 * provider, the domain of its AS.
 */
export function onlineSources(
  config: Pick<Config, 'dnsServers' | 'rdapUrl' | 'allowPrivateWebhooks'>,
  caches: LookupCaches,
  judgements: NetworkJudgements,
): OnlineSources {
  // Each question has a second; the queue's deadline (2 s) bounds the PTR and its check.
  const dns = configuredDns(config, 1_000);
  const rdap = configuredRdap(config);
  const context = (judgement: NetworkJudgement | null) => {
    const owner = judgement ? caches.autnum(judgement.asn) : null;
    return {
      networkKind: judgement?.kind === 'unknown' ? null : (judgement?.kind ?? null),
      providerDomains:
        owner?.domain && judgement?.kind !== 'business' ? [owner.domain] : ([] as string[]),
    };
  };
  return {
    async reverseDns(address) {
      const judgement = await judgements(address);
      return reverseDnsSignal(address, dns, {
        ...context(judgement),
        networkName: judgement?.name,
      });
    },
    rdapHost(query) {
      const url = 'address' in query ? rdap.networkUrl(query.address) : rdap.autnumUrl(query.asn);
      return url ? new URL(url).host : '';
    },
    async network(address, abort): Promise<RegisteredNetwork | null> {
      const url = rdap.networkUrl(address);
      const record = url ? await asked(() => rdap.network(url, abort)) : null;
      const range = record && rangeOf(record);
      if (!record || !range) return null;
      const judgement = await judgements(address);
      const about = { ...context(judgement), asnName: judgement?.name ?? null };
      let signal = registrationSignal(record, about);
      // Only the parent's holder can show a named holder to be the provider itself.
      const parent =
        signal.verdict === 'organisation' || signal.verdict === 'weak' ? parentOf(record) : null;
      if (parent) {
        const above = await asked(() => rdap.network(parent.url, abort));
        if (above) signal = registrationSignal(record, { ...about, parent: above });
      }
      return { ...range, handle: record.handle ?? '', signal };
    },
    async autnum(asn, abort) {
      const url = rdap.autnumUrl(asn);
      const record = url ? await asked(() => rdap.autnum(url, abort)) : null;
      if (!record) return null;
      const { domain, name } = autnumDomain(record);
      const label = [`AS${asn}`, record.name, name].filter(Boolean).join(' ');
      return {
        asn,
        name: name ?? record.name ?? `AS${asn}`,
        domain,
        signal: {
          signal: 'registration',
          value: label,
          verdict: domain ? 'organisation' : 'none',
          ...(domain && { domain }),
          ...(name && { name }),
        },
      };
    },
  };
}
