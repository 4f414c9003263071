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
import { type NetworkParts, resolverChain } from '../identify/chain.js';
import { defaultCityDatabases, GeoLocator } from '../identify/geo.js';
import { Identities } from '../identify/identity.js';
import { alertsWanted } from '../notifications/store.js';
import { deliveryMode as operatorDeliveryMode } from '../webhooks/outbox.js';
import type { Collected } from './body.js';
import { type DropReason, ingestMetrics } from './metrics.js';
import { type IngestContext, ingestSteps, runPipeline } from './pipeline.js';
import { recordOf } from './record.js';
import { ScriptDirectory, type ScriptGone, type TrackingScript } from './scripts.js';
import { visitorLocks } from './store.js';
import { IngestTally } from './tally.js';
import { groupWriter, type WriteRequest } from './writer.js';

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

/** The collector's parts: script lookup, the pipeline, metrics and the group-commit writer. */
export async function createCollector(config: Config, db: Kysely<Database>, log: Log = () => {}) {
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
  const steps = ingestSteps(geo, chain.resolvers);
  const scripts = new ScriptDirectory(db);
  // The delivery mode of a workspace's operator (null: off); a change applies within 5 s.
  // A workspace with alert rules needs the same new-session candidates (notifications/).
  const deliveryMode = cachedLookup(
    async (workspaceId) =>
      (await operatorDeliveryMode(db, workspaceId)) ??
      ((await alertsWanted(db, workspaceId)) ? 'session' : null),
    {
      max: 10_000,
      ttlMs: 5_000,
    },
  );
  const tally = new IngestTally(db, config.ingestTallyMs);
  const idleMs = config.sessionIdleSeconds * 1000;

  // A deadlock or serialization failure is written again here, never handed to the tracker
  // (it does not retry); a group that fails for its data is split to find the bad request.
  const writer = new GroupCommit<WriteRequest>(
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
    resolvers: chain.resolvers,
    /** The background lookups (null with ONLINE_LOOKUPS=off), started as a job of the server. */
    lookups: chain.online?.lookups ?? null,
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
      const request: WriteRequest = { context: recordOf(context) };
      await writer.add([request]);
      if (request.refused) return { refused: request.refused };
      for (const [reason, events] of dropped) tally.add(script.workspaceId, reason, events);
      tally.add(script.workspaceId, '', request.context.events.length);
      return { stored: request.context.events.length };
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
