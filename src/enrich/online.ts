import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import { isPublicAddress } from '../http/outbound/address-guard.js';
import type { OrganisationHint } from '../identify/ip-ranges.js';
import {
  type NetworkDomains,
  type NetworkJudgements,
  networkOwnerSignal,
} from '../identify/network-owner.js';
import { LATER, type Resolver, type VisitClues } from '../identify/resolver.js';
import { decide } from './agree.js';
import type { LookupCaches } from './cache.js';
import type { LookupQueue, Need, WaitingVisitor } from './lookups.js';
import type { Signal } from './signals.js';

// The collector's side of the online signals (contract §16): it reads the memory caches
// only, and a visit whose answers are not there yet waits for the background queue.

export interface OnlineDeps {
  config: Pick<Config, 'onlineLookups' | 'allowPrivateWebhooks' | 'networkOwnerStrictness'>;
  caches: LookupCaches;
  queue: LookupQueue;
  judgements: NetworkJudgements;
}

/**
 * Whether an address may be asked about at all: lookups are on, and it is a public
 * address (or private ones are allowed, as for webhooks in development and tests).
 */
export function mayLookUp(
  config: Pick<Config, 'onlineLookups' | 'allowPrivateWebhooks'>,
  address: string,
): boolean {
  return config.onlineLookups && (config.allowPrivateWebhooks || isPublic(address));
}

// Whether an address is public, for the addresses seen lately: parsing one costs a few
// microseconds, on every visit of an unnamed visitor (docs/performance.md).
const publicAddresses = new LRUCache<string, boolean>({ max: 10_000 });
function isPublic(address: string): boolean {
  let known = publicAddresses.get(address);
  if (known === undefined) {
    known = isPublicAddress(address);
    publicAddresses.set(address, known);
  }
  return known;
}

const waiting = (clues: VisitClues): WaitingVisitor | null =>
  clues.visitorId ? { workspaceId: clues.workspaceId, visitorId: clues.visitorId } : null;

/**
 * The network owner's domain and common name from its AS's registration (RDAP autnum),
 * for `networkOwnerResolver`: LATER while the registration is being looked up.
 */
export function autnumDomains(deps: OnlineDeps): NetworkDomains {
  return (judgement, clues) => {
    if (!mayLookUp(deps.config, clues.ip)) return null;
    const autnum = deps.caches.autnum(judgement.asn);
    if (autnum === undefined) {
      deps.queue.want(clues.ip, ['autnum'], waiting(clues), judgement.asn);
      return LATER;
    }
    if (!autnum) return null;
    return {
      domain: autnum.domain,
      name: autnum.domain ? autnum.name : null,
      signals: [autnum.signal],
    };
  };
}

/**
 * What the signals name, as the organisation a resolver answers; one without a domain is
 * keyed `name:<name>`, as an `.mmdb` record without one is.
 */
export function hintOf(named: NonNullable<ReturnType<typeof decide>>): OrganisationHint {
  return {
    domain: named.domain || `name:${named.name}`,
    name: named.name,
    identification: { method: named.method, evidence: { signals: named.signals } },
  };
}

/**
 * Reverse DNS and the registration of the visitor's network, after the network owner: names
 * the organisation at once when the caches hold both answers and they agree (`decide`);
 * otherwise asks the queue for what is missing and answers LATER.
 */
export function onlineSignalsResolver(deps: OnlineDeps): Resolver {
  return {
    name: 'online_signals',
    async resolve(clues) {
      if (!mayLookUp(deps.config, clues.ip)) return null;
      // Already being looked up: its answers are not all in yet (the caches need not be read).
      if (deps.queue.join(clues.ip, waiting(clues))) return LATER;
      const ptr = deps.caches.reverseDns(clues.ip);
      const network = deps.caches.network(clues.ip);
      const missing: Need[] = [];
      if (network === undefined) missing.push('registration');
      if (ptr === undefined) missing.push('reverse_dns');
      if (missing.length > 0) {
        deps.queue.want(clues.ip, missing, waiting(clues));
        return LATER;
      }
      const judgement = await deps.judgements(clues.ip);
      const signals: Signal[] = [];
      if (judgement) {
        signals.push(networkOwnerSignal(judgement, deps.config.networkOwnerStrictness));
      }
      if (network) signals.push(network.signal);
      if (ptr) signals.push(ptr);
      const named = decide(signals);
      return named ? hintOf(named) : null;
    },
  };
}
