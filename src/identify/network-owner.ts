import { createRequire } from 'node:module';
import { LRUCache } from 'lru-cache';
import badAsnList from './data/hosting-asns-bad-asn-list.json' with { type: 'json' };
import x4bnet from './data/hosting-asns-x4bnet.json' with { type: 'json' };
import brands from './enterprise-brands.json' with { type: 'json' };
import { defaultCityDatabases, GeoLocator } from './geo.js';
import type { OrganisationHint } from './ip-ranges.js';
import { type Footprint, footprintOf } from './network-footprint.js';
import kinds from './network-kinds.json' with { type: 'json' };
import { NetworkOverrides, overridesFile } from './network-overrides.js';
import { NetworkTable } from './network-table.js';
import { LATER, type Resolver, type VisitClues } from './resolver.js';

export type NetworkKind = 'business' | 'isp' | 'mobile' | 'hosting';
export const NETWORK_KINDS: readonly NetworkKind[] = ['business', 'isp', 'mobile', 'hosting'];

/** How much evidence the network owner needs (NETWORK_OWNER_STRICTNESS). */
export type Strictness = 'off' | 'strict' | 'balanced';
export const STRICTNESS: readonly Strictness[] = ['off', 'strict', 'balanced'];

/** What Footfall makes of a network, and why (docs/identification.md). */
export interface NetworkJudgement {
  asn: number;
  name: string;
  /** `unknown`: nothing says what it is, so it is not an organisation. */
  kind: NetworkKind | 'unknown';
  rule:
    | 'operator_override'
    | 'listed'
    | 'enterprise_list'
    | 'enterprise_brand'
    | 'hosting_list'
    | 'name'
    | 'footprint_score';
  /** The words of its name that decided or weighed in, by group. */
  words: Record<string, string>;
  footprint?: string;
  ipv4_addresses: number;
  ipv4_ranges: number;
  ipv6_ranges: number;
  score?: number;
  threshold?: number;
  /** The enterprise's main domain and common name, when its name says which one it is. */
  domain?: string;
  common_name?: string;
}

const require = createRequire(import.meta.url);

/** The ip-location-db ASN data (RouteViews and DB-IP, CC BY 4.0) shipped in the npm registry. */
export function defaultAsnDatabases(): string[] {
  return ['asn-ipv4.csv', 'asn-ipv6.csv'].map((file) =>
    require.resolve(`@ip-location-db/asn/${file}`),
  );
}

const LARGE = 65_536;
const listed = new Map<number, NetworkKind>();
for (const kind of ['hosting', 'mobile', 'isp'] as const) {
  for (const asn of kinds.asns[kind]) listed.set(asn, kind);
}
const enterprises = new Set(kinds.enterprises.asns.map(([asn]) => asn as number));
const hostingLists = new Set([...x4bnet.asns, ...badAsnList.asns]);
const wordGroup = (group: keyof typeof kinds.words) =>
  new RegExp((kinds.words[group] as string[]).join('|'));
const networkWords = (['hosting', 'mobile', 'isp'] as const).map((kind) => ({
  kind,
  pattern: wordGroup(kind),
}));
const organisationWords = wordGroup('organisation');
const hints = (['organisation_hint', 'service_hint', 'small_provider_form'] as const).map(
  (group) => ({ group, pattern: wordGroup(group) }),
);
const { about: _about, ...weights } = kinds.score;

/** A name as the word lists read it: lower case, accents taken off. */
export const normaliseName = (name: string): string =>
  name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

// Brands as words of the name, the longest first ("siemens healthineers" before "siemens").
const brandOf = new Map(
  (brands.brands as [string, string, string][]).map(([words, name, domain]) => [
    words,
    { name, domain },
  ]),
);
const brandWords = new RegExp(
  `(?<![a-z0-9])(?:${[...brandOf.keys()]
    .sort((a, b) => b.length - a.length)
    .map((words) => words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|')})(?![a-z0-9])`,
);

/**
 * The well-known enterprise a network's name spells (enterprise-brands.json), unless the rest
 * of the name says provider: "Juniper Networks" is the company, "Sony Network
 * Communications" the access provider, "Huawei Cloud" a host.
 */
export function enterpriseBrand(
  name: string,
): { words: string; name: string; domain: string } | null {
  const spaced = normaliseName(name).replace(/[^a-z0-9]+/g, ' ');
  const words = brandWords.exec(spaced)?.[0];
  const brand = words ? brandOf.get(words) : undefined;
  if (!words || !brand) return null;
  const rest = spaced.replace(words, ' ');
  if (networkWords.some(({ pattern }) => pattern.test(rest))) return null;
  return { words, ...brand };
}

const describe = (footprint: Footprint): string =>
  footprint.places === 0
    ? 'no location'
    : footprint.places === 1
      ? `one place: ${[footprint.city, footprint.country].filter(Boolean).join(', ')}`
      : `several places: ${[footprint.city, footprint.country].filter(Boolean).join(', ')} and ${footprint.second}`;

/**
 * Judges networks on positive evidence: a network is an organisation when a list, its name
 * or its footprint says so, never by default. Judgements are kept per network (the
 * footprint walks the city data), operator overrides apply on top of them.
 */
export class NetworkJudge {
  private readonly judged = new LRUCache<number, NetworkJudgement>({ max: 50_000 });

  constructor(
    readonly table: NetworkTable,
    private readonly geo: GeoLocator,
    private readonly overrides?: NetworkOverrides,
  ) {}

  /** The judgement of the network with this index in the table. */
  async judge(network: number): Promise<NetworkJudgement> {
    const asn = this.table.asn(network);
    let judgement = this.judged.get(network);
    if (!judgement) {
      judgement = this.evidence(network);
      this.judged.set(network, judgement);
    }
    const override = await this.overrides?.kindOf(asn);
    return override ? { ...judgement, kind: override, rule: 'operator_override' } : judgement;
  }

  /** The judgement of a network by its ASN; null when the data does not know it. */
  async judgeAsn(asn: number): Promise<NetworkJudgement | null> {
    const network = this.table.indexOf(asn);
    return network === -1 ? null : this.judge(network);
  }

  private evidence(network: number): NetworkJudgement {
    const asn = this.table.asn(network);
    const name = this.table.name(network);
    const base = {
      asn,
      name,
      words: {} as Record<string, string>,
      ipv4_addresses: this.table.ipv4Addresses[network] as number,
      ipv4_ranges: this.table.ipv4RangeCount(network),
      ipv6_ranges: this.table.ipv6RangeCount(network),
    };
    const listedKind = listed.get(asn);
    if (listedKind) return { ...base, kind: listedKind, rule: 'listed' };
    const brand = enterpriseBrand(name);
    const known = brand ? { domain: brand.domain, common_name: brand.name } : {};
    if (enterprises.has(asn)) {
      return { ...base, ...known, kind: 'business', rule: 'enterprise_list' };
    }
    if (hostingLists.has(asn)) return { ...base, kind: 'hosting', rule: 'hosting_list' };
    if (brand) {
      return {
        ...base,
        ...known,
        kind: 'business',
        rule: 'enterprise_brand',
        words: { brand: brand.words },
      };
    }

    const text = normaliseName(name);
    for (const { kind, pattern } of networkWords) {
      const word = pattern.exec(text)?.[0];
      if (word) return { ...base, kind, rule: 'name', words: { [kind]: word } };
    }
    const words: Record<string, string> = {};
    for (const { group, pattern } of hints) {
      const word = pattern.exec(text)?.[0];
      if (word) words[group] = word;
    }
    const large = base.ipv4_addresses >= LARGE;
    const organisation = organisationWords.exec(text)?.[0];
    // A large public body named as a data or IT service is a carrier (a research network).
    if (organisation && !(large && words.service_hint)) {
      return { ...base, kind: 'business', rule: 'name', words: { organisation, ...words } };
    }

    const footprint = footprintOf(this.table, network, this.geo);
    const scored = {
      ...base,
      words,
      footprint: describe(footprint),
      rule: 'footprint_score' as const,
    };
    if (footprint.places === 0 || large) return { ...scored, kind: 'unknown' };
    let score = footprint.places === 1 ? weights.one_city : weights.spread;
    if (base.ipv4_addresses >= 16_384) score += weights.addresses_16k;
    if (base.ipv4_addresses <= 1_024) score += weights.addresses_1k_or_fewer;
    if (base.ipv6_ranges > 0) score += weights.ipv6;
    if (base.ipv4_ranges >= 5) score += weights.ranges_5;
    for (const group of Object.keys(words) as (typeof hints)[number]['group'][]) {
      score += weights[group];
    }
    return {
      ...scored,
      kind: score >= weights.threshold ? 'business' : 'unknown',
      score,
      threshold: weights.threshold,
    };
  }
}

/** Whether a judgement names an organisation at this strictness. */
export function isOrganisation(judgement: NetworkJudgement, strictness: Strictness): boolean {
  if (strictness === 'off' || judgement.kind !== 'business') return false;
  return strictness === 'balanced' || judgement.rule !== 'footprint_score';
}

const loaded = new Map<string, Promise<NetworkTable>>();

/** The network data of these files, loaded once per process (about a second, ~10 MB). */
export function networkTable(paths: string[]): Promise<NetworkTable> {
  const key = paths.join('\n');
  let table = loaded.get(key);
  if (!table) {
    table = NetworkTable.load(paths);
    loaded.set(key, table);
    table.catch(() => loaded.delete(key));
  }
  return table;
}

/** The judgement of the network holding an address; null when the data has none. */
export type NetworkJudgements = (ip: string) => Promise<NetworkJudgement | null>;

/** Judgements of addresses' networks on these data files, which load on first use. */
export function networkJudgements(options: {
  paths: string[];
  geo: GeoLocator;
  overrides: NetworkOverrides;
}): NetworkJudgements {
  let judge: Promise<NetworkJudge> | undefined;
  return async (ip) => {
    judge ??= networkTable(options.paths).then(
      (table) => new NetworkJudge(table, options.geo, options.overrides),
    );
    const judging = await judge;
    const network = judging.table.find(ip);
    return network === -1 ? null : judging.judge(network);
  };
}

/** One signal as evidence shows it (`identification.evidence.signals`; enrich/signals.ts). */
export interface SignalShown {
  signal: string;
  value: string;
  verdict: string;
}

/**
 * The network owner as a signal among the online ones (contract §16): an organisation when
 * it names one at this strictness, weak when only its footprint says business and the
 * strictness wants more, a provider when it is an access provider's, carrier's or host's.
 */
export function networkOwnerSignal(judgement: NetworkJudgement, strictness: Strictness) {
  const verdict = isOrganisation(judgement, strictness)
    ? 'organisation'
    : judgement.kind === 'business' && strictness !== 'off'
      ? 'weak'
      : judgement.kind === 'unknown' || judgement.kind === 'business'
        ? 'none'
        : 'provider';
  return {
    signal: 'network_owner',
    value: `AS${judgement.asn} ${judgement.name}`,
    verdict,
  } as const satisfies SignalShown;
}

/**
 * Open data tying a business network to its organisation's domain and common name (the
 * AS's own registration, looked up online by enrich/), with the signals consulted: null
 * when nothing was asked, LATER while it is being looked up (the visit is then named when
 * the lookup ends).
 */
export type NetworkDomains = (
  judgement: NetworkJudgement,
  clues: VisitClues,
) => { domain: string | null; name: string | null; signals: SignalShown[] } | null | typeof LATER;

/**
 * The network owner, when the evidence says it is an organisation at this strictness:
 * keyed by the domain open data gives it (`domains`), else `as<number>`.
 */
export function networkOwnerResolver(options: {
  paths: string[];
  geo: GeoLocator;
  strictness: Strictness;
  overrides: NetworkOverrides;
  judgements?: NetworkJudgements;
  domains?: NetworkDomains;
}): Resolver {
  const judgementOf = options.judgements ?? networkJudgements(options);
  return {
    name: 'network_owner',
    async resolve(clues) {
      if (options.strictness === 'off') return null;
      const judgement = await judgementOf(clues.ip);
      if (!judgement || !isOrganisation(judgement, options.strictness)) return null;
      // An enterprise whose name says which one it is needs no lookup for its domain.
      const found = judgement.domain
        ? { domain: judgement.domain, name: judgement.common_name ?? judgement.name, signals: [] }
        : (options.domains?.(judgement, clues) ?? null);
      if (found === LATER) return LATER;
      const signals = [
        networkOwnerSignal(judgement, options.strictness),
        ...(found?.signals ?? []),
      ];
      // Without a domain, keyed by the AS as before: it meets no e-mail's company.
      return {
        domain: found?.domain ?? `as${judgement.asn}`,
        name: (found?.domain && found.name) || judgement.name,
        identification: {
          method: 'network_owner',
          evidence: { ...judgement, strictness: options.strictness, signals },
        },
      } satisfies OrganisationHint;
    },
  };
}

/** A judge on the configured data, with the operator's overrides (for CLI commands). */
export async function configuredJudge(settings: {
  asnDb: string[] | null;
  geoipCityDb: string[] | null;
  dataDir: string;
}): Promise<NetworkJudge> {
  const [table, geo] = await Promise.all([
    networkTable(settings.asnDb ?? defaultAsnDatabases()),
    GeoLocator.open(settings.geoipCityDb ?? defaultCityDatabases()),
  ]);
  return new NetworkJudge(table, geo, new NetworkOverrides(overridesFile(settings.dataDir)));
}
