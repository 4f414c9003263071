import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { LookupCaches } from '../enrich/cache.js';
import { LookupQueue } from '../enrich/lookups.js';
import { autnumDomains, type OnlineDeps, onlineSignalsResolver } from '../enrich/online.js';
import { onlineSources } from '../enrich/sources.js';
import { type NetworkParts, resolverChain } from '../identify/chain.js';
import { defaultCityDatabases, GeoLocator } from '../identify/geo.js';
import { Identities } from '../identify/identity.js';
import { attributeLate } from './attribute-late.js';
import { createCollector } from './collector.js';
import { type GroupCommitSinkDeps, groupCommitSink } from './group-commit-sink.js';
import { ingestMetrics } from './metrics.js';
import { ingestSteps } from './pipeline.js';
import { ScriptDirectory } from './scripts.js';
import type { IngestSink } from './sink.js';
import { visitorLocks } from './store.js';
import { IngestTally } from './tally.js';

type Log = (message: string) => void;

/**
 * The online signals of contract §16 for the resolver chain, with the background queue
 * their lookups run in, off the collector's path.
 */
function onlineParts(config: Config, db: Kysely<Database>, registry: Registry, log: Log) {
  return ({ judgements, nameLater }: NetworkParts) => {
    const caches = new LookupCaches(db);
    const lookups = new LookupQueue({
      caches,
      sources: onlineSources(config, caches, judgements),
      // Once the answers are in the caches, the same resolvers name the address.
      resolve: nameLater,
      attribute: (hint, visitors) => attributeLate({ db, visitorLocks }, hint, visitors),
      registry,
      log,
    });
    const online: OnlineDeps = { config, caches, queue: lookups, judgements };
    return { domains: autnumDomains(online), resolvers: [onlineSignalsResolver(online)], lookups };
  };
}

/**
 * The collecting side of a server, each part made once: the resolver chain (which Spotter
 * shares), the pipeline, the sink, and the collector that joins them.
 */
export async function assembleIngest(
  config: Config,
  db: Kysely<Database>,
  interest: GroupCommitSinkDeps['interest'],
  log: Log = () => {},
) {
  const geo = await GeoLocator.open(config.geoipCityDb ?? defaultCityDatabases());
  const identities = new Identities(db);
  const metrics = ingestMetrics();
  const chain = resolverChain({
    config,
    db,
    geo,
    identities,
    ...(config.onlineLookups && { online: onlineParts(config, db, metrics.registry, log) }),
  });
  // The one place a sink is chosen; a queue (contract §19) would be picked here by config.
  const sink: IngestSink = groupCommitSink({ config, db, identities, metrics, interest });
  const collector = createCollector({
    scripts: new ScriptDirectory(db),
    metrics,
    steps: ingestSteps(geo, chain.resolvers),
    sink,
    tally: new IngestTally(db, config.ingestTallyMs),
  });
  return {
    collector,
    /** The resolver chain, for Spotter to name a visitor as the collector does. */
    resolvers: chain.resolvers,
    /** The background lookups (null with ONLINE_LOOKUPS=off), started as a job of the server. */
    lookups: chain.online?.lookups ?? null,
  };
}
