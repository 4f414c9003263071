import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import type { GeoLocator } from './geo.js';
import { type Identities, identityResolver } from './identity.js';
import { IpRangeFiles, rangeFilesDir } from './ip-range-files.js';
import { IpRanges, type OrganisationHint } from './ip-ranges.js';
import { NetworkOverrides, overridesFile } from './network-overrides.js';
import {
  defaultAsnDatabases,
  type NetworkDomains,
  type NetworkJudgements,
  networkJudgements,
  networkOwnerResolver,
} from './network-owner.js';
import { ipRangeResolver, type Resolver, resolveOrganisation } from './resolver.js';

/** What the online signals (contract §16) add to the chain. */
export interface OnlineParts {
  /** The network owner's domain and name when its AS's name alone does not say them. */
  domains: NetworkDomains;
  /** Resolvers asked after the network owner. */
  resolvers: Resolver[];
}

/**
 * What the online parts are made from: the chain's network judgements, and `nameLater`,
 * which names an address again (network owner and online signals, from their caches) once
 * the background lookups it waited for have answered.
 */
export interface NetworkParts {
  judgements: NetworkJudgements;
  nameLater: (ip: string) => Promise<OrganisationHint | null>;
}

export interface ChainDeps<Online extends OnlineParts> {
  config: Pick<Config, 'dataDir' | 'asnDb' | 'networkOwnerStrictness'>;
  db: Kysely<Database>;
  geo: GeoLocator;
  identities: Identities;
  /**
   * Builds the online parts (with ONLINE_LOOKUPS on). They live in another feature, which
   * imports this one, so they come in as a function rather than an import.
   */
  online?: (network: NetworkParts) => Online;
}

/**
 * The resolver chain of contract §16, first match wins: the identity layer, the operator's
 * IP ranges, the network owner, then the online signals when given. Built once per server
 * and shared by the collector and Spotter, so both name a visitor the same way. Answers
 * the online parts too, as `online` made them (null without). `collecting` is the same
 * chain for the collector's answer path: the identity layer asks only what the process
 * remembers, and the worker asks the database for a batch at once (ingest/writer.ts).
 */
export function resolverChain<Online extends OnlineParts>(
  deps: ChainDeps<Online>,
): { resolvers: Resolver[]; collecting: Resolver[]; online: Online | null } {
  const { config, geo } = deps;
  const overrides = new NetworkOverrides(overridesFile(config.dataDir));
  const paths = config.asnDb ?? defaultAsnDatabases();
  const judgements = networkJudgements({ paths, geo, overrides });
  // The resolvers after the operator's ranges; the online parts name addresses through them.
  const network: Resolver[] = [];
  const online =
    deps.online?.({
      judgements,
      nameLater: (ip) =>
        resolveOrganisation(network, { ip, workspaceId: '', visitorId: '', emails: [] }),
    }) ?? null;
  network.push(
    networkOwnerResolver({
      paths,
      geo,
      strictness: config.networkOwnerStrictness,
      overrides,
      judgements,
      ...(online && { domains: online.domains }),
    }),
    ...(online?.resolvers ?? []),
  );
  const ranges = ipRangeResolver(
    new IpRanges(deps.db),
    new IpRangeFiles(rangeFilesDir(config.dataDir)),
  );
  const resolvers = [identityResolver(deps.identities), ranges, ...network];
  const collecting = [identityResolver(deps.identities, { memoryOnly: true }), ranges, ...network];
  return { resolvers, collecting, online };
}
