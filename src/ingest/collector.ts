import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import { cachedLookup } from '../db/cached-lookup.js';
import { isTransient, mayBeInTheData, writeFailure } from '../db/failures.js';
import { GroupCommit } from '../db/group-commit.js';
import type { Database } from '../db/schema.js';
import { attributeLate } from '../enrich/attribute.js';
import { LookupCaches } from '../enrich/cache.js';
import { LookupQueue } from '../enrich/lookups.js';
import { autnumDomains, type OnlineDeps, onlineSignalsResolver } from '../enrich/online.js';
import { onlineSources } from '../enrich/sources.js';
import { defaultCityDatabases, GeoLocator } from '../identify/geo.js';
import { Identities, identityResolver } from '../identify/identity.js';
import { IpRangeFiles, rangeFilesDir } from '../identify/ip-range-files.js';
import { IpRanges } from '../identify/ip-ranges.js';
import { NetworkOverrides, overridesFile } from '../identify/network-overrides.js';
import {
  defaultAsnDatabases,
  networkJudgements,
  networkOwnerResolver,
} from '../identify/network-owner.js';
import { ipRangeResolver, type Resolver, resolveOrganisation } from '../identify/resolver.js';
import type { Interest } from '../outbox/events.js';
import type { Collected } from './body.js';
import { type DropReason, ingestMetrics } from './metrics.js';
import { type IngestContext, ingestSteps, runPipeline } from './pipeline.js';
import { ScriptDirectory, type ScriptGone, type TrackingScript } from './scripts.js';
import { visitorLocks } from './store.js';
import { IngestTally } from './tally.js';
import { type Accepted, groupWriter } from './writer.js';

/**
 * The resolvers after the operator's ranges: the network owner and, with ONLINE_LOOKUPS on,
 * the online signals, whose lookups run in a background queue off the collector's path.
 */
function networkResolvers(
  config: Config,
  db: Kysely<Database>,
  geo: GeoLocator,
  log: Log,
  registry: Registry,
) {
  const overrides = new NetworkOverrides(overridesFile(config.dataDir));
  const paths = config.asnDb ?? defaultAsnDatabases();
  const judgements = networkJudgements({ paths, geo, overrides });
  const owner = (online?: OnlineDeps) =>
    networkOwnerResolver({
      paths,
      geo,
      strictness: config.networkOwnerStrictness,
      overrides,
      judgements,
      ...(online && { domains: autnumDomains(online) }),
    });
  if (!config.onlineLookups) return { resolvers: [owner()], lookups: null };
  const caches = new LookupCaches(db);
  const later: Resolver[] = [];
  const lookups = new LookupQueue({
    caches,
    sources: onlineSources(config, caches, judgements),
    // Once the answers are in the caches, the same resolvers name the address.
    resolve: (ip) => resolveOrganisation(later, { ip, workspaceId: '', visitorId: '', emails: [] }),
    attribute: (hint, visitors) => attributeLate({ db, visitorLocks }, hint, visitors),
    registry,
    log,
  });
  const online: OnlineDeps = { config, caches, queue: lookups, judgements };
  later.push(owner(online), onlineSignalsResolver(online));
  return { resolvers: later, lookups };
}

type Log = (message: string) => void;

/** The collector's parts: script lookup, the pipeline, metrics and the group-commit writer. */
export async function createCollector(
  config: Config,
  db: Kysely<Database>,
  interest: (db: Kysely<Database>, workspaceId: string) => Promise<Interest | null>,
  log: Log = () => {},
) {
  const geo = await GeoLocator.open(config.geoipCityDb ?? defaultCityDatabases());
  const identities = new Identities(db);
  const metrics = ingestMetrics();
  const network = networkResolvers(config, db, geo, log, metrics.registry);
  const resolvers = [
    identityResolver(identities),
    ipRangeResolver(new IpRanges(db), new IpRangeFiles(rangeFilesDir(config.dataDir))),
    ...network.resolvers,
  ];
  const steps = ingestSteps(geo, resolvers);
  const scripts = new ScriptDirectory(db);
  // What the workspace's subscribers want recorded (null: nothing); a change applies
  // within 5 s.
  const deliveryMode = cachedLookup((workspaceId) => interest(db, workspaceId), {
    max: 10_000,
    ttlMs: 5_000,
  });
  const tally = new IngestTally(db, config.ingestTallyMs);
  const idleMs = config.sessionIdleSeconds * 1000;

  // A deadlock or serialization failure is written again here, never handed to the tracker
  // (it does not retry); a group that fails for its data is split to find the bad request.
  const writer = new GroupCommit<Accepted>(
    groupWriter({ db, idleMs, identities, deliveryMode, metrics }),
    {
      maxItems: 500, // requests, each with up to 100 events
      concurrency: 2,
      retry: { when: (error) => isTransient(writeFailure(error)), attempts: 5, delayMs: 10 },
      split: (error) => mayBeInTheData(writeFailure(error)),
      onWrite: (count, ms) => {
        metrics.groupSize.observe(count);
        metrics.groupSeconds.observe(ms / 1000);
      },
      onRetry: (error) => metrics.retries.inc({ reason: writeFailure(error) }),
      onSplit: (error) => metrics.splits.inc({ reason: writeFailure(error) }),
    },
  );

  return {
    scripts,
    metrics,
    /** The resolver chain of the pipeline, for Spotter to name a visitor the same way. */
    resolvers,
    /** The background lookups (null with ONLINE_LOOKUPS=off), started as a job of the server. */
    lookups: network.lookups,
    /**
     * Runs the pipeline and resolves once what it kept is committed: the number stored, or
     * why the script no longer takes events (nothing of the request is then stored).
     */
    async ingest(
      script: TrackingScript,
      collected: Collected,
      client: { ip: string; userAgent: string | undefined; gpc: boolean },
    ): Promise<{ stored: number } | { refused: ScriptGone }> {
      metrics.received.inc(collected.events.length);
      const context: IngestContext = {
        script,
        visitorId: collected.visitorId,
        ...client,
        events: collected.events,
      };
      const dropped: [DropReason, number][] = [];
      await runPipeline(steps, context, metrics, (reason, events) =>
        dropped.push([reason, events]),
      );
      // Even a request whose events were all dropped goes through the writer, whose
      // transaction checks that its script is still active: it is answered as it should be.
      const accepted: Accepted = { context, visitorId: collected.visitorId };
      await writer.add([accepted]);
      if (accepted.refused) return { refused: accepted.refused };
      for (const [reason, events] of dropped) tally.add(script.workspaceId, reason, events);
      tally.add(script.workspaceId, '', context.events.length);
      return { stored: context.events.length };
    },
    /** Waits for every acknowledged write and the counts of what arrived (at shutdown). */
    flush: async () => {
      await writer.flush();
      await tally.flush();
    },
    tally,
  };
}
export type Collector = Awaited<ReturnType<typeof createCollector>>;
