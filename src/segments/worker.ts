import { type Kysely, sql } from 'kysely';
import { listCustomFields } from '../custom-fields/store.js';
import { isDatabaseUnreachable } from '../db/failures.js';
import { inSavepoint } from '../db/savepoint.js';
import type { Database } from '../db/schema.js';
import { claimQueued } from '../outbox/claim-queued.js';
import { markSegmentsStale } from '../outbox/segment-queue.js';
import { checkFilters } from './filters.js';
import {
  failureReason,
  markFailed,
  refreshOrganisations,
  refreshSegment,
  rethrowIfTransient,
  type SegmentFailure,
} from './membership.js';

const QUEUE_BATCH = 5_000;
// Work per round is bounded, so queued organisations never wait long behind full refreshes.
const WORKSPACES_PER_ROUND = 50;
const REFRESHES_PER_ROUND = 10;

export interface SegmentWorkerDeps {
  db: Kysely<Database>;
  /** How often segments with relative dates are computed again in full. */
  relativeRefreshSeconds: number;
  /** Told of every segment (or workspace) skipped because it could not be evaluated. */
  failed: (failure: SegmentFailure) => void;
}

/**
 * One round of the segment worker, in every server: evaluates the segments of
 * organisations the collector queued, a workspace per transaction, then computes in full
 * the segments that time or an outside change made due, a segment per transaction. Rows
 * are claimed with SKIP LOCKED, so servers share the work; a segment that fails is
 * skipped and marked (membership.ts), and one tenant's failure never rolls back another's.
 */
export async function runSegmentWorker(
  deps: SegmentWorkerDeps,
  stopping: () => boolean,
): Promise<void> {
  for (let i = 0; i < WORKSPACES_PER_ROUND && !stopping(); i++) {
    if ((await drainQueue(deps)) === 0) break;
  }
  for (let i = 0; i < REFRESHES_PER_ROUND && !stopping(); i++) {
    if (!(await refreshDueSegment(deps))) break;
  }
}

/**
 * Takes the queued organisations of one workspace (up to a batch) and refreshes their
 * membership; answers the rows taken. When the workspace cannot be evaluated at all, its
 * rows are dropped and its segments left to the full computation, so it is not first in
 * the queue forever.
 */
export async function drainQueue(deps: Pick<SegmentWorkerDeps, 'db' | 'failed'>): Promise<number> {
  const { db } = deps;
  let claimed = null as Awaited<ReturnType<typeof claimQueued>>;
  let failures: SegmentFailure[] = [];
  try {
    await db.transaction().execute(async (trx) => {
      claimed = await claimQueued(trx, 'segment_queue', QUEUE_BATCH);
      if (!claimed) return;
      failures = await refreshOrganisations(trx, claimed.workspaceId, claimed.organisationIds);
    });
  } catch (error) {
    const lost = claimed;
    // A lost database rolled the claim back: the rows are queued still, for the next round.
    if (!lost || isDatabaseUnreachable(error)) throw error;
    const { workspaceId } = lost;
    await db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('segment_queue')
        .where('workspace_id', '=', workspaceId)
        .where('organisation_id', 'in', lost.organisationIds)
        .execute();
      await markSegmentsStale(trx, workspaceId);
    });
    failures = [{ workspaceId, segmentId: null, reason: failureReason(error) }];
  }
  for (const failure of failures) deps.failed(failure);
  return claimed?.taken ?? 0;
}

/** Computes one due segment in full; false when none is due. */
export async function refreshDueSegment(
  deps: Pick<SegmentWorkerDeps, 'db' | 'failed' | 'relativeRefreshSeconds'>,
): Promise<boolean> {
  let failure: SegmentFailure | undefined;
  const found = await deps.db.transaction().execute(async (trx) => {
    // NO KEY UPDATE: it does not block the key-share locks of a concurrent refresh.
    const due = await sql<{ workspace_id: string; id: string; filters: unknown }>`
      SELECT workspace_id, id, filters FROM segments
      WHERE (refreshed_at IS NULL
          OR (relative_dates AND refreshed_at < now() - make_interval(secs => ${deps.relativeRefreshSeconds})))
        AND (retry_at IS NULL OR retry_at <= now())
      ORDER BY refreshed_at NULLS FIRST
      LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED`.execute(trx);
    const row = due.rows[0];
    if (!row) return false;
    const segment = { workspaceId: row.workspace_id, id: row.id };
    const checked = checkFilters(row.filters, await listCustomFields(trx, row.workspace_id), {
      stored: true,
    });
    const error =
      'filters' in checked
        ? await inSavepoint(trx, () =>
            refreshSegment(trx, { ...segment, filters: checked.filters }, { notify: true }),
          )
        : new InvalidStoredFilters();
    if (error !== null) {
      rethrowIfTransient(error);
      failure = await markFailed(trx, segment, error);
      return true;
    }
    await trx
      .updateTable('segments')
      .set({ refreshed_at: sql`now()`, failures: 0, retry_at: null })
      .where('workspace_id', '=', row.workspace_id)
      .where('id', '=', row.id)
      .execute();
    return true;
  });
  if (failure) deps.failed(failure);
  return found;
}

/** A stored filter that no longer passes the grammar's checks. */
class InvalidStoredFilters extends Error {
  override name = 'InvalidStoredFilters';
}
