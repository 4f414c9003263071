import { type Kysely, sql } from 'kysely';
import { listCustomFields } from '../custom-fields/store.js';
import { runPeriodically } from '../db/periodic.js';
import type { Database } from '../db/schema.js';
import { checkFilters } from './filters.js';
import { refreshOrganisations, refreshSegment } from './membership.js';

const QUEUE_BATCH = 5_000;
// Work per tick is bounded, so queued organisations never wait long behind full refreshes.
const QUEUE_BATCHES_PER_TICK = 10;
const REFRESHES_PER_TICK = 10;

export interface SegmentWorkerDeps {
  db: Kysely<Database>;
  /** How often segments with relative dates are computed again in full. */
  relativeRefreshSeconds: number;
  log: (message: string) => void;
}

/**
 * The segment worker, in every server: evaluates the segments of organisations the
 * collector queued, and computes in full the segments that time or an outside change made
 * due. Queue rows and due segments are claimed with SKIP LOCKED, so servers share the work.
 */
export function startSegmentWorker(
  deps: SegmentWorkerDeps,
  pollMs = 1_000,
): { stop(): Promise<void> } {
  return runPeriodically(async (stopping) => {
    try {
      for (let i = 0; i < QUEUE_BATCHES_PER_TICK && !stopping(); i++) {
        if ((await drainQueue(deps.db)) < QUEUE_BATCH) break;
      }
      for (let i = 0; i < REFRESHES_PER_TICK && !stopping(); i++) {
        if (!(await refreshDueSegment(deps.db, deps.relativeRefreshSeconds))) break;
      }
    } catch (error) {
      deps.log(`segment worker: ${(error as Error).message}`);
    }
  }, pollMs);
}

/** Takes a batch of queued organisations and refreshes them; answers the rows taken. */
export async function drainQueue(db: Kysely<Database>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ workspace_id: string; organisation_id: string }>`
      DELETE FROM segment_queue WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM segment_queue LIMIT ${QUEUE_BATCH} FOR UPDATE SKIP LOCKED))
      RETURNING workspace_id, organisation_id`.execute(trx);
    const byWorkspace = new Map<string, Set<string>>();
    for (const row of rows) {
      const ids = byWorkspace.get(row.workspace_id) ?? new Set<string>();
      ids.add(row.organisation_id);
      byWorkspace.set(row.workspace_id, ids);
    }
    // Workspaces in one order, segments in one order: concurrent workers never deadlock.
    for (const workspaceId of [...byWorkspace.keys()].sort()) {
      await refreshOrganisations(trx, workspaceId, [...(byWorkspace.get(workspaceId) ?? [])]);
    }
    return rows.length;
  });
}

/** Computes one due segment in full; false when none is due. */
export async function refreshDueSegment(
  db: Kysely<Database>,
  relativeRefreshSeconds: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const due = await sql<{ workspace_id: string; id: string; filters: unknown }>`
      SELECT workspace_id, id, filters FROM segments
      WHERE refreshed_at IS NULL
        OR (relative_dates AND refreshed_at < now() - make_interval(secs => ${relativeRefreshSeconds}))
      ORDER BY refreshed_at NULLS FIRST
      LIMIT 1 FOR UPDATE SKIP LOCKED`.execute(trx);
    const row = due.rows[0];
    if (!row) return false;
    const checked = checkFilters(row.filters, await listCustomFields(trx, row.workspace_id), {
      stored: true,
    });
    if ('filters' in checked) {
      await refreshSegment(
        trx,
        { workspaceId: row.workspace_id, id: row.id, filters: checked.filters },
        { notify: true },
      );
    }
    await trx
      .updateTable('segments')
      .set({ refreshed_at: sql`now()` })
      .where('workspace_id', '=', row.workspace_id)
      .where('id', '=', row.id)
      .execute();
    return true;
  });
}
