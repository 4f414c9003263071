import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { cachedLookup } from '../db/cached-lookup.js';
import { isTransient, mayBeInTheData, writeFailure } from '../db/failures.js';
import { GroupCommit } from '../db/group-commit.js';
import type { Database } from '../db/schema.js';
import type { Identities } from '../identify/identity.js';
import type { Interest } from '../outbox/events.js';
import type { IngestMetrics } from './metrics.js';
import type { IngestSink } from './sink.js';
import { groupWriter, type WriteRequest } from './writer.js';

export interface GroupCommitSinkDeps {
  config: Pick<Config, 'sessionIdleSeconds'>;
  db: Kysely<Database>;
  /** The identity layer's memory, told of visitors who identified once that committed. */
  identities: Identities;
  metrics: IngestMetrics;
  /** What the workspace's subscribers want recorded (outbox/events.ts, `interestOf`). */
  interest: (db: Kysely<Database>, workspaceId: string) => Promise<Interest | null>;
}

/**
 * The sink that writes: records of requests that arrive together share one transaction of
 * the writer's phases (writer.ts), and `add` resolves once that transaction committed, with
 * the stored count, or `refused` for a record whose script the transaction found gone.
 */
export function groupCommitSink(deps: GroupCommitSinkDeps): IngestSink {
  const { config, db, identities, metrics, interest } = deps;
  // What the workspace's subscribers want recorded (null: nothing); a change applies
  // within 5 s.
  const cachedInterest = cachedLookup((workspaceId) => interest(db, workspaceId), {
    max: 10_000,
    ttlMs: 5_000,
  });
  const idleMs = config.sessionIdleSeconds * 1000;

  // A deadlock or serialization failure is written again here, never handed to the tracker
  // (it does not retry); a group that fails for its data is split to find the bad request.
  const writer = new GroupCommit<WriteRequest>(
    groupWriter({ db, idleMs, identities, interest: cachedInterest, metrics }),
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
    async add(records) {
      const requests: WriteRequest[] = records.map((context) => ({ context }));
      await writer.add(requests);
      return requests.map(({ context, refused }) =>
        refused ? { refused } : { stored: context.events.length },
      );
    },
    flush: () => writer.flush(),
  };
}
