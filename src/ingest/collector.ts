import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { cachedLookup } from '../db/cached-lookup.js';
import { GroupCommit } from '../db/group-commit.js';
import type { Database } from '../db/schema.js';
import { defaultCityDatabases, GeoLocator, UNKNOWN_LOCATION } from '../identify/geo.js';
import { emailSightings, Identities, identityResolver } from '../identify/identity.js';
import { IpRangeFiles, rangeFilesDir } from '../identify/ip-range-files.js';
import { IpRanges } from '../identify/ip-ranges.js';
import { defaultAsnDatabases, networkOwnerResolver } from '../identify/network-owner.js';
import { ipRangeResolver } from '../identify/resolver.js';
import { ensureOrganisations, organisationKey } from '../organisations/store.js';
import type { Collected } from './body.js';
import { ingestMetrics } from './metrics.js';
import { type IngestContext, ingestSteps, runPipeline } from './pipeline.js';
import { ScriptDirectory, type TrackingScript } from './scripts.js';
import type { VisitEvent } from './sessionizer.js';
import { storeEvents } from './store.js';

/** A collect request after the pipeline: what the writer needs. */
interface Accepted {
  context: IngestContext;
  visitorId: string;
}

/** The collector's parts: script lookup, the pipeline, metrics and the group-commit writer. */
export async function createCollector(config: Config, db: Kysely<Database>) {
  const geo = await GeoLocator.open(config.geoipCityDb ?? defaultCityDatabases());
  const identities = new Identities(db);
  const resolvers = [
    identityResolver(identities),
    ipRangeResolver(new IpRanges(db), new IpRangeFiles(rangeFilesDir(config.dataDir))),
    networkOwnerResolver(config.asnDb ?? defaultAsnDatabases()),
  ];
  const steps = ingestSteps(geo, resolvers);
  const scripts = new ScriptDirectory(db);
  // Whether a workspace's operator has webhook delivery on; a change applies within 5 s.
  const deliveryOn = cachedLookup(
    async (workspaceId) =>
      (await db
        .selectFrom('workspaces as w')
        .innerJoin('webhook_configs as c', 'c.operator_id', 'w.operator_id')
        .select('w.id')
        .where('w.id', '=', workspaceId)
        .where('c.url', 'is not', null)
        .executeTakeFirst()) !== undefined,
    { max: 10_000, ttlMs: 5_000 },
  );
  const metrics = ingestMetrics();
  const idleMs = config.sessionIdleSeconds * 1000;

  const writer = new GroupCommit<Accepted>(
    async (accepted) => {
      const organisations = await ensureOrganisations(
        db,
        accepted.flatMap(({ context }) =>
          context.organisation
            ? [{ workspaceId: context.script.workspaceId, ...context.organisation }]
            : [],
        ),
      );
      const organisationOf = ({ script, organisation }: IngestContext) =>
        organisation
          ? (organisations.get(organisationKey(script.workspaceId, organisation.domain)) ?? null)
          : null;
      const items: VisitEvent[] = accepted.flatMap(({ context, visitorId }) => {
        const { script, agent, location } = context;
        const visit = {
          workspaceId: script.workspaceId,
          visitorId,
          browser: agent?.browser ?? '',
          deviceType: agent?.deviceType ?? '',
          location: location ?? UNKNOWN_LOCATION,
          organisationId: organisationOf(context),
        };
        return context.events.map((event) => ({ visit, event }));
      });
      const contacts = accepted.flatMap(({ context, visitorId }) =>
        emailSightings(context.events).map((sighting) => ({
          ...sighting,
          workspaceId: context.script.workspaceId,
          visitorId,
          organisationId: organisationOf(context),
        })),
      );
      const identified = accepted.flatMap(({ context, visitorId }) => {
        const { script, organisation } = context;
        const organisationId = organisation?.email ? organisationOf(context) : null;
        return organisation?.email && organisationId
          ? [
              {
                workspaceId: script.workspaceId,
                visitorId,
                organisationId,
                email: organisation.email,
                organisation,
              },
            ]
          : [];
      });
      const delivering = await Promise.all(
        [...new Set(accepted.map(({ context }) => context.script.workspaceId))].map(deliveryOn),
      );
      await storeEvents(db, items, idleMs, { identified, contacts }, delivering.some(Boolean));
      for (const { workspaceId, visitorId, organisation } of identified) {
        identities.remember(workspaceId, visitorId, organisation);
      }
      metrics.stored.inc(items.length);
    },
    {
      maxItems: 500, // requests, each with up to 100 events
      concurrency: 2,
      onWrite: (count, ms) => {
        metrics.groupSize.observe(count);
        metrics.groupSeconds.observe(ms / 1000);
      },
    },
  );

  return {
    scripts,
    metrics,
    /** The resolver chain of the pipeline, for Spotter to name a visitor the same way. */
    resolvers,
    /** Runs the pipeline and resolves once what it kept is committed; the number stored. */
    async ingest(
      script: TrackingScript,
      collected: Collected,
      client: { ip: string; userAgent: string | undefined; gpc: boolean },
    ): Promise<number> {
      metrics.received.inc(collected.events.length);
      const context: IngestContext = {
        script,
        visitorId: collected.visitorId,
        ...client,
        events: collected.events,
      };
      await runPipeline(steps, context, metrics);
      if (context.events.length === 0) return 0;
      await writer.add([{ context, visitorId: collected.visitorId }]);
      return context.events.length;
    },
    /** Waits for every acknowledged write (at shutdown). */
    flush: () => writer.flush(),
  };
}
export type Collector = Awaited<ReturnType<typeof createCollector>>;
