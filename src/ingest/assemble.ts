import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import { cachedLookup } from '../db/cached-lookup.js';
import type { Database } from '../db/schema.js';
import { LookupCaches } from '../enrich/cache.js';
import { LookupQueue } from '../enrich/lookups.js';
import { autnumDomains, type OnlineDeps, onlineSignalsResolver } from '../enrich/online.js';
import { onlineSources } from '../enrich/sources.js';
import { type NetworkParts, resolverChain } from '../identify/chain.js';
import { defaultCityDatabases, GeoLocator } from '../identify/geo.js';
import { Identities } from '../identify/identity.js';
import type { Interest } from '../outbox/events.js';
import { attributeLate } from './attribute-late.js';
import { createCollector } from './collector.js';
import { InboxWorker } from './drain.js';
import { BacklogGauge, inboxSink } from './inbox.js';
import { ingestMetrics } from './metrics.js';
import { ingestSteps } from './pipeline.js';
import { ScriptDirectory } from './scripts.js';
import type { IngestSink } from './sink.js';
import { visitorLocks } from './store.js';
import { IngestTally } from './tally.js';
import { writeWithin } from './writer.js';

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
  /** What the workspace's subscribers want recorded (outbox/events.ts, `interestOf`). */
  interest: (db: Kysely<Database>, workspaceId: string) => Promise<Interest | null>,
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
  // What the workspace's subscribers want recorded (null: nothing); a change applies
  // within 5 s.
  const cachedInterest = cachedLookup((workspaceId) => interest(db, workspaceId), {
    max: 10_000,
    ttlMs: 5_000,
  });
  // The worker's side (contract §19): the inbox processed through the writer's phases.
  const worker = new InboxWorker({
    db,
    write: writeWithin({
      db,
      idleMs: config.sessionIdleSeconds * 1000,
      identities,
      interest: cachedInterest,
      metrics,
    }),
    metrics,
    batchRequests: config.ingestBatch,
    gatherMs: config.ingestGatherMs,
    log,
  });
  // The one place the sink is chosen: the inbox, acknowledged once appended. A process that
  // also works (role all) is told at once that there is work.
  const sink: IngestSink = inboxSink(db, metrics, () => worker.wake());
  const collector = createCollector({
    scripts: new ScriptDirectory(db),
    metrics,
    steps: ingestSteps(geo, chain.collecting),
    sink,
    tally: new IngestTally(db, config.ingestTallyMs),
    backlog: new BacklogGauge(db, config.ingestBacklogMax),
  });
  return {
    collector,
    /** The resolver chain, for Spotter to name a visitor as the collector does. */
    resolvers: chain.resolvers,
    /** The background lookups (null with ONLINE_LOOKUPS=off), started as a job of the server. */
    lookups: chain.online?.lookups ?? null,
    /** Processes the inbox; started as a job of a worker process. */
    worker,
  };
}
