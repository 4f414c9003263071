import { type Kysely, sql } from 'kysely';
import { listCustomFields } from '../custom-fields/store.js';
import { isDatabaseUnreachable, sqlState } from '../db/failures.js';
import { inSavepoint } from '../db/savepoint.js';
import type { Database } from '../db/schema.js';
import { eventRows, recordEvents } from '../outbox/events.js';
import { matchingOrganisations } from './compile.js';
import { checkFilters, type Group } from './filters.js';

/**
 * Segment membership (segment_members), kept current:
 * - in full when a segment is saved, and again by the segment worker when time moves a
 *   relative-date boundary or when a change outside the workspace asks for it (stale);
 * - for single organisations in the transaction of an API change to them (tags, custom
 *   field values), and by the worker for organisations the collector queued.
 * An organisation that newly matches records a `segment.entered` event (outbox/), written in
 * the same statement as its membership, except when a segment is saved: its first members
 * did not enter, they were found.
 */

// Advisory lock class of segment refreshes (two-key form, apart from the visitor locks).
const LOCK_CLASS = 7_301;

export interface SavedSegment {
  workspaceId: string;
  id: string;
  filters: Group;
}

/** A segment that could not be evaluated: skipped, marked, and computed in full later. */
export interface SegmentFailure {
  workspaceId: string;
  /** Null when the workspace's queued organisations could not be evaluated at all. */
  segmentId: string | null;
  /** The SQLSTATE or the error's name: never the data that caused it. */
  reason: string;
}

/**
 * The workspace's segments with their filters checked against its current custom fields.
 * Each row is key-share locked, so a segment deleted meanwhile is either waited for and
 * left out or kept until this transaction has written its members (no foreign-key error).
 */
export async function workspaceSegments(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<SavedSegment[]> {
  const [rows, customFields] = await Promise.all([
    db
      .selectFrom('segments')
      .select(['id', 'filters'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('id')
      .forKeyShare()
      .execute(),
    listCustomFields(db, workspaceId),
  ]);
  return rows.flatMap((row) => {
    const checked = checkFilters(row.filters, customFields, { stored: true });
    return 'filters' in checked ? [{ workspaceId, id: row.id, filters: checked.filters }] : [];
  });
}

/**
 * Computes the segment's membership (of all organisations, or of only these) and writes
 * the difference, in one statement under the segment's lock. Run inside a transaction.
 */
export async function refreshSegment(
  trx: Kysely<Database>,
  segment: SavedSegment,
  options: { organisationIds?: string[]; notify: boolean; locked?: boolean },
): Promise<{ entered: number; left: number }> {
  const { workspaceId, id } = segment;
  const ids = options.organisationIds;
  if (!options.locked) {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${id}))`.execute(trx);
  }
  const matching = matchingOrganisations(segment.filters, { workspaceId, organisationIds: ids });
  const enteredRows = sql`SELECT ${workspaceId}::uuid AS workspace_id, organisation_id,
    ${id}::uuid AS segment_id FROM entered WHERE ${options.notify}::boolean`;
  const { rows } = await sql<{ entered: number; left: number }>`
    WITH matching AS (${matching}),
    gone AS (
      DELETE FROM segment_members m
      WHERE m.workspace_id = ${workspaceId} AND m.segment_id = ${id}
        ${ids ? sql`AND m.organisation_id = ANY(${ids}::uuid[])` : sql``}
        AND m.organisation_id NOT IN (SELECT id FROM matching)
      RETURNING 1
    ), entered AS (
      INSERT INTO segment_members (workspace_id, segment_id, organisation_id)
      SELECT ${workspaceId}, ${id}, matching.id FROM matching
      ON CONFLICT DO NOTHING
      RETURNING organisation_id
    ), recorded AS (${recordEvents(eventRows('segment.entered', enteredRows, ['segment_id']))})
    SELECT (SELECT count(*) FROM entered)::int AS entered, (SELECT count(*) FROM gone)::int AS left`.execute(
    trx,
  );
  return rows[0] ?? { entered: 0, left: 0 };
}

/**
 * Brings these organisations' membership of every segment of the workspace up to date
 * (locks taken in segment id order, so concurrent refreshes never deadlock). Run inside
 * the transaction of the change, so the change and its consequences commit together.
 * A segment that cannot be evaluated is skipped and marked (markFailed); the others
 * still follow. Answers the segments skipped.
 */
export async function refreshOrganisations(
  trx: Kysely<Database>,
  workspaceId: string,
  organisationIds: string[],
): Promise<SegmentFailure[]> {
  if (organisationIds.length === 0) return [];
  // Locks first (in id order, one statement), filters after: a segment saved meanwhile
  // is then read as saved.
  const locked = await sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(id::text))
    FROM segments WHERE workspace_id = ${workspaceId} ORDER BY id`.execute(trx);
  if (locked.rows.length === 0) return [];
  const segments = await workspaceSegments(trx, workspaceId);
  const refresh = (segment: SavedSegment) =>
    refreshSegment(trx, segment, { organisationIds, notify: true, locked: true });
  // All segments under one savepoint; only when that fails, one savepoint each, so the
  // usual case costs two statements more and a broken segment costs only itself.
  const failed = await inSavepoint(trx, async () => {
    for (const segment of segments) await refresh(segment);
  });
  if (failed === null) return [];
  rethrowIfTransient(failed);
  const failures: SegmentFailure[] = [];
  for (const segment of segments) {
    const error = await inSavepoint(trx, () => refresh(segment));
    if (error === null) continue;
    rethrowIfTransient(error);
    failures.push(await markFailed(trx, segment, error));
  }
  return failures;
}

/**
 * Records that a segment could not be evaluated: counted in a row, the reason kept (no
 * data), its full computation asked for again after a back-off that doubles from 30 s to
 * an hour. Failures within the back-off do not push it further.
 */
export async function markFailed(
  trx: Kysely<Database>,
  segment: { workspaceId: string; id: string },
  error: unknown,
): Promise<SegmentFailure> {
  const reason = failureReason(error);
  await sql`
    UPDATE segments SET
      failures = failures + 1, failed_at = now(), last_error = ${reason}, refreshed_at = NULL,
      retry_at = CASE WHEN retry_at > now() THEN retry_at
        ELSE now() + make_interval(secs => least(30 * power(2, least(failures, 7)), 3600)) END
    WHERE workspace_id = ${segment.workspaceId} AND id = ${segment.id}`.execute(trx);
  return { workspaceId: segment.workspaceId, segmentId: segment.id, reason };
}

// SQLSTATE classes that say nothing about the segment (connection, deadlock, resources,
// shutdown), and a lost connection: the whole transaction is tried again. A statement timeout (57014) is the
// segment's own cost, so it counts as its failure, or it would be retried first forever.
const TRANSIENT = ['08', '40', '53', '57P'];

export function rethrowIfTransient(error: unknown): void {
  const code = sqlState(error);
  if (code && TRANSIENT.some((prefix) => code.startsWith(prefix))) throw error;
  if (isDatabaseUnreachable(error)) throw error;
}

export const failureReason = (error: unknown): string => {
  const code = sqlState(error);
  if (code) return `SQLSTATE ${code}`;
  return error instanceof Error ? error.name : 'unknown error';
};
