import type { FastifyBaseLogger } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import { removeExpiredInvites } from './accounts/invites.js';
import { removeExpiredSignIns } from './auth/cleanup.js';
import { publicOrigin, type Role } from './config.js';
import type { DatabaseOutage } from './db/outage.js';
import { ensureMonthPartitions } from './db/partitions.js';
import { runPeriodically } from './db/periodic.js';
import { pruneLookupCaches } from './enrich/cache.js';
import type { LookupQueue } from './enrich/lookups.js';
import { companySitesRound } from './enrich/site-reader.js';
import type { Api, AppDeps } from './http/api.js';
import { configuredDns } from './http/outbound/dns.js';
import type { InboxWorker } from './ingest/drain.js';
import { pruneEventIds, vacuumInbox } from './ingest/inbox.js';
import { createMailer } from './mail/transport.js';
import { sendDueDigests } from './notifications/digests.js';
import { FAN_OUT_BATCH, fanOut } from './outbox/events.js';
import { queueChangedDomain } from './outbox/segment-queue.js';
import { runRetentionIfDue } from './privacy/retention.js';
import { runScoringRound } from './scoring/job.js';
import { runSegmentWorker } from './segments/worker.js';
import { recordEndedSessions } from './sessions/ended.js';
import { SUBSCRIBERS } from './subscribers.js';
import { purgeDeletedWorkspace } from './workspaces/purge.js';

interface Stoppable {
  stop(): Promise<void>;
}

/** Whether a process of `role` serves `part` (contract §19): `all` serves every part. */
export const serves = (role: Role, part: Exclude<Role, 'all'>) => role === 'all' || role === part;

/** The parts of the collecting side that run as jobs: the inbox's worker, the lookups. */
export interface IngestJobs {
  worker: InboxWorker;
  /** The collector's online lookups (null with ONLINE_LOOKUPS=off). */
  lookups: LookupQueue | null;
}

/**
 * A background job: its name, how often it runs, and one round of its work (`run`), which
 * the app schedules, one round at a time. A round that throws is logged and counted under
 * the job's name (a database out of reach is logged once for all) and the next round runs
 * as usual; a job isolates failures per item itself.
 * A job whose work outlives a round (deliveries in flight) schedules itself (`start`).
 */
export type Job = { name: string; everyMs: number } & (
  | { run(stopping: () => boolean): Promise<void>; atStart?: boolean }
  | { start(everyMs: number): Stoppable }
);

/**
 * Every background job of a process of the server's role, in one list: a worker runs them
 * all (any number of workers may: each job keeps its work to one of them, by locks or
 * leases), a collector only the online lookups of the addresses it saw, an api process none.
 */
export function backgroundJobs(
  deps: AppDeps,
  registry: Registry,
  log: Pick<FastifyBaseLogger, 'info' | 'error' | 'warn'>,
  outage: DatabaseOutage,
  ingest: IngestJobs,
): Job[] {
  const { config } = deps;
  const jobs: Job[] = [];
  // The collector's online lookups (contract §16): addresses wait in this process's memory.
  if (serves(config.role, 'collector') && ingest.lookups) {
    const lookups = ingest.lookups;
    jobs.push({ name: 'lookups', everyMs: 0, start: () => lookups.start() });
  }
  if (serves(config.role, 'worker')) jobs.push(...workerJobs(deps, registry, log, outage, ingest));
  return jobs;
}

function workerJobs(
  deps: AppDeps,
  registry: Registry,
  log: Pick<FastifyBaseLogger, 'info' | 'error' | 'warn'>,
  outage: DatabaseOutage,
  { worker }: IngestJobs,
): Job[] {
  const { config, db } = deps;
  // A worker's failure is an error, unless the database is out of reach (noted once).
  const workerFailed = (message: string, error: unknown) => {
    if (!outage.report(error)) log.error(message);
  };
  const segmentFailures = new Counter({
    name: 'footfall_segment_failures_total',
    help: 'Segments skipped because they could not be evaluated (marked, tried again later)',
    registers: [registry],
  });
  // Mail of subscribers (alerts): the app's mailer when given (tests), else SMTP_URL's.
  const subscriberMailer = deps.mailer ?? createMailer(config);
  return [
    {
      // The inbox (contract §19): acknowledged requests through the writer's phases, each
      // batch one lane, so any number of workers share it; woken at once by an append here.
      name: 'ingest',
      everyMs: 100,
      start: (everyMs) =>
        worker.start(config.ingestWorkers, everyMs, (error) => {
          if (!outage.report(error)) log.error(`ingest: ${(error as Error).message}`);
        }),
    },
    {
      // Dead rows of processed requests cleared between autovacuum's rounds (inbox.ts).
      name: 'ingest-vacuum',
      everyMs: 2_000,
      run: async () => {
        await vacuumInbox(db);
      },
    },
    {
      // Month partitions of events, sessions and their rollups made ahead (db/partitions.ts).
      name: 'partitions',
      everyMs: 3_600_000,
      atStart: true,
      run: async () => {
        const made = await ensureMonthPartitions(db);
        if (made > 0) log.info(`partitions: made ${made} month partitions of events and sessions`);
      },
    },
    {
      // Event ids are kept 30 days: a tracker sends again within hours, at its next page.
      name: 'ingest-event-ids',
      everyMs: 3_600_000,
      atStart: true,
      run: async () => {
        await pruneEventIds(db, 30);
      },
    },
    {
      // Ended sessions become events, then every event becomes its subscribers' deliveries
      // (one statement per batch, SKIP LOCKED, so every server may run it).
      name: 'outbox',
      everyMs: 250,
      run: async (stopping) => {
        await recordEndedSessions(db, config.sessionIdleSeconds);
        while ((await fanOut(db, SUBSCRIBERS)) === FAN_OUT_BATCH && !stopping());
      },
    },
    // Each subscriber's deliveries, on the shared delivery loop: it keeps deliveries in
    // flight between rounds, so it schedules itself.
    ...SUBSCRIBERS.map(
      (subscriber): Job => ({
        name: `${subscriber.name}-deliveries`,
        everyMs: 500,
        start: (everyMs) =>
          subscriber.start(
            {
              db,
              config,
              encryptionKey: deps.keys.encryption,
              mailer: subscriberMailer,
              resolve: deps.resolve,
              log: workerFailed,
            },
            everyMs,
          ),
      }),
    ),
    {
      // Every minute on every server; each digest period is sent once (digest_periods).
      name: 'digests',
      everyMs: 60_000,
      atStart: true,
      run: async () => {
        await sendDueDigests({ db, base: publicOrigin(config) }, deps.clock?.() ?? new Date());
      },
    },
    {
      name: 'segments',
      everyMs: 1_000,
      run: (stopping) =>
        runSegmentWorker(
          {
            db,
            relativeRefreshSeconds: config.segmentRefreshSeconds,
            failed: ({ workspaceId, segmentId, reason }) => {
              segmentFailures.inc();
              // Ids and an SQLSTATE only: the failing value may be personal data.
              log.error(
                segmentId
                  ? `segments: segment ${segmentId} of workspace ${workspaceId} skipped (${reason}); tried again later`
                  : `segments: queued organisations of workspace ${workspaceId} skipped (${reason}); its segments are computed again in full`,
              );
            },
          },
          stopping,
        ),
    },
    {
      // Lead scores (contract §17): full re-scores when rules change or hourly, and the
      // organisations whose visits or attributes moved; every server, under locks.
      name: 'scoring',
      everyMs: 5_000,
      run: (stopping) =>
        runScoringRound(db, stopping, (workspaceId, reason) =>
          // Ids and an SQLSTATE only: the failing value may be personal data.
          log.error(`scoring: workspace ${workspaceId} skipped (${reason}); tried again later`),
        ),
    },
    {
      name: 'workspace-purge',
      everyMs: 2_000,
      run: async (stopping) => {
        const removed = await purgeDeletedWorkspace(db, stopping);
        if (removed > 0)
          log.info(`workspace-purge: removed ${removed} rows of a deleted workspace`);
      },
    },
    {
      // RDAP registrations are kept 30 days; every server may prune, it is one DELETE.
      name: 'lookup-caches',
      everyMs: 3_600_000,
      atStart: true,
      run: async () => {
        await pruneLookupCaches(db);
      },
    },
    {
      name: 'expired-sign-ins',
      everyMs: 3_600_000,
      atStart: true,
      run: async () => {
        await removeExpiredSignIns(db);
        await removeExpiredInvites(db);
      },
    },
    ...(config.onlineLookups
      ? [
          {
            // Company profiles from their homepages (contract §16); every server reads at
            // most READS_AT_ONCE at a time, and a domain is leased to one server.
            name: 'company-sites',
            everyMs: 3_000,
            atStart: true,
            run: companySitesRound(
              {
                db,
                allowPrivate: config.allowPrivateWebhooks,
                resolve: configuredDns(config).resolver,
                profileChanged: (domain) => queueChangedDomain(db, domain),
              },
              (domain, error) =>
                workerFailed(`company-sites: ${domain} not stored (${error.message})`, error),
            ),
          },
        ]
      : []),
    ...(config.retentionDays > 0
      ? [
          {
            name: 'retention',
            // Checked hourly; it runs once a day across all servers (runRetentionIfDue).
            everyMs: 3_600_000,
            atStart: true,
            run: async () => {
              const expired = await runRetentionIfDue(db, config.retentionDays);
              if (expired) {
                log.info(
                  `retention: deleted ${expired.sessions} sessions, ${expired.events} events and ${expired.deliveries} deliveries older than ${config.retentionDays} days`,
                );
              }
            },
          },
        ]
      : []),
  ];
}

/**
 * Starts the background jobs when the app is ready and stops them when it closes (a
 * running round ends first).
 */
export function scheduleJobs(
  app: Api,
  deps: AppDeps,
  registry: Registry,
  outage: DatabaseOutage,
  ingest: IngestJobs,
): void {
  const jobs = backgroundJobs(deps, registry, app.log, outage, ingest);
  const errors = new Counter({
    name: 'footfall_job_errors_total',
    help: 'Background job rounds that failed, by job',
    labelNames: ['job'] as const,
    registers: [registry],
  });
  let running: Stoppable[] = [];
  app.addHook('onReady', async () => {
    running = jobs.map((job) => {
      if ('start' in job) return job.start(job.everyMs);
      return runPeriodically(
        (stopping) =>
          job.run(stopping).catch((error: Error) => {
            errors.inc({ job: job.name });
            if (!outage.report(error)) app.log.error(`${job.name}: ${error.message}`);
          }),
        job.everyMs,
        { atStart: job.atStart },
      );
    });
  });
  app.addHook('onClose', async () => {
    await Promise.all(running.map((job) => job.stop()));
  });
}
