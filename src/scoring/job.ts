import { type Kysely, type RawBuilder, sql } from 'kysely';
import { inSavepoint } from '../db/savepoint.js';
import type { Database } from '../db/schema.js';
import { claimQueued } from '../outbox/claim-queued.js';
import { failureReason, rethrowIfTransient } from '../segments/membership.js';
import { scoreOrganisations } from './score.js';
import { checkedScoring } from './settings.js';

/**
 * The scoring job (contract §17: "scores follow every change within a minute"), one round
 * every few seconds on every server, never on a request's path:
 * - a workspace whose scoring an admin changed, or that was last scored in full an hour ago
 *   or more (key pages count for 30 days, rules may say "in the last 7 days"), is scored
 *   in full, one workspace per transaction, under a lock only one server gets;
 * - organisations whose visits moved (the stats rollup of today and yesterday differs from
 *   what they were scored with) are scored again: the collector does nothing for this;
 * - organisations queued by a change to them (tags, custom values, owner, status, profile).
 * A workspace whose scoring fails (a stored rule the database refuses) is skipped and told
 * (`failed`, with an SQLSTATE only), as if scored, so it never holds up the others; a
 * database out of reach ends the round.
 */

/** Told of a workspace whose scores could not be computed. */
export type ScoringFailed = (workspaceId: string, reason: string) => void;

// Advisory lock class of scoring (two-key form, apart from segments' and visitors').
const LOCK_CLASS = 7_302;
/** Full re-scores at least this often. */
export const FULL_EVERY = '1 hour';
/** Organisations scored for their visits per round (every 5 s): 100 a second. */
export const MOVED_PER_ROUND = 500;
const CHUNK = 100;
/** A full scoring of one workspace may take this long (ms). */
const FULL_TIMEOUT_MS = 600_000;

/** Each organisation's visits of today and yesterday (UTC): sessions + page views. */
const activityOf = (workspaceId: RawBuilder<unknown>) => sql<{
  organisation_id: string;
  activity: string;
}>`
  SELECT d.organisation_id, sum(d.sessions + d.pageviews) AS activity
  FROM stats_organisation_days d
  WHERE d.workspace_id = ${workspaceId} AND d.day >= (now() AT TIME ZONE 'UTC')::date - 1
  GROUP BY d.organisation_id`;
const FULL_PER_ROUND = 5;

export async function runScoringRound(
  db: Kysely<Database>,
  stopping: () => boolean,
  failed: ScoringFailed = () => {},
): Promise<void> {
  for (let i = 0; i < FULL_PER_ROUND && !stopping(); i++) {
    if (!(await scoreDueWorkspace(db, failed))) break;
  }
  if (!stopping()) await scoreMovedActivity(db, failed);
  while (!stopping() && (await scoreQueued(db, failed)) > 0);
}

/**
 * Scores in a savepoint: a failure of the workspace's own is told and answered false (the
 * transaction goes on); one of the database's is thrown.
 */
async function scoredApart(
  trx: Kysely<Database>,
  workspaceId: string,
  failed: ScoringFailed,
  organisationIds?: string[],
  activity?: string[],
): Promise<boolean> {
  const error = await inSavepoint(trx, async () =>
    scoreOrganisations(
      trx,
      workspaceId,
      await checkedScoring(trx, workspaceId),
      organisationIds,
      activity,
    ),
  );
  if (error === null) return true;
  rethrowIfTransient(error);
  failed(workspaceId, failureReason(error));
  return false;
}

/** Scores one due workspace in full; false when none is due. */
export async function scoreDueWorkspace(
  db: Kysely<Database>,
  failed: ScoringFailed = () => {},
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const due = (workspaceId?: string) => sql<{ id: string; started: Date }>`
      SELECT w.id, now() AS started FROM workspaces w
      LEFT JOIN scoring_runs r ON r.workspace_id = w.id
      LEFT JOIN scoring_settings s ON s.workspace_id = w.id
      WHERE w.deleted_at IS NULL ${workspaceId ? sql`AND w.id = ${workspaceId}` : sql``}
        AND (r.scored_at IS NULL OR r.scored_at < now() - ${FULL_EVERY}::interval
             OR s.changed_at >= r.scored_at)
      ORDER BY r.scored_at NULLS FIRST
      LIMIT 10`;
    for (const candidate of (await due().execute(trx)).rows) {
      const { rows } = await sql<{ ok: boolean }>`
        SELECT pg_try_advisory_xact_lock(${LOCK_CLASS}, hashtext(${candidate.id})) AS ok`.execute(
        trx,
      );
      if (!rows[0]?.ok) continue;
      // Another server may have scored it between the read and the lock.
      const still = (await due(candidate.id).execute(trx)).rows[0];
      if (!still) continue;
      // A workspace is one statement: longer than a request may take on a large one.
      await sql`SELECT set_config('statement_timeout', ${String(FULL_TIMEOUT_MS)}, true)`.execute(
        trx,
      );
      await scoredApart(trx, still.id, failed);
      // Its organisations are scored with today's visits: the visits path need not again.
      await sql`
        UPDATE organisations o SET scored_activity = a.activity
        FROM (${activityOf(sql`${still.id}::uuid`)}) a
        WHERE o.workspace_id = ${still.id} AND o.id = a.organisation_id
          AND o.scored_activity <> a.activity`.execute(trx);
      await trx
        .insertInto('scoring_runs')
        .values({ workspace_id: still.id, scored_at: still.started })
        .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ scored_at: still.started }))
        .execute();
      return true;
    }
    return false;
  });
}

/**
 * Scores again the organisations whose visits of today and yesterday (UTC days, the
 * stats rollup) are not what they were scored with; answers how many it took.
 */
export async function scoreMovedActivity(
  db: Kysely<Database>,
  failed: ScoringFailed = () => {},
  limit = MOVED_PER_ROUND,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const locked = await sql<{ ok: boolean }>`
      SELECT pg_try_advisory_xact_lock(${LOCK_CLASS}, 0) AS ok`.execute(trx);
    if (!locked.rows[0]?.ok) return 0;
    // At most `limit` a round: scoring is background work, and a flood of new
    // organisations (each scored once, ~0.3 ms of database) must not take the collector's
    // share of the machine; they follow at this pace (docs/lead-score.md).
    const { rows } = await sql<{ workspace_id: string; id: string; activity: string }>`
      SELECT w.id AS workspace_id, a.organisation_id AS id, a.activity
      FROM workspaces w
      CROSS JOIN LATERAL (${activityOf(sql`w.id`)}) a
      JOIN organisations o ON o.workspace_id = w.id AND o.id = a.organisation_id
      WHERE w.deleted_at IS NULL AND o.scored_activity <> a.activity
      LIMIT ${limit}`.execute(trx);
    for (const [workspaceId, all] of byWorkspace(rows)) {
      // A hundred at a time: scored 500 at once, an organisation cost several times as
      // much (measured, docs/performance.md), the mark of plans no longer by index.
      for (let at = 0; at < all.length; at += CHUNK) {
        const moved = all.slice(at, at + CHUNK);
        const ids = moved.map((row) => row.id);
        const activity = moved.map((row) => row.activity);
        // Scored, each row written once with the activity it was scored with: a visit
        // after the read above moves it again.
        if (await scoredApart(trx, workspaceId, failed, ids, activity)) continue;
        // Failed: they are not tried again until their visits move once more.
        await sql`
          UPDATE organisations o SET scored_activity = m.activity
          FROM unnest(${ids}::uuid[], ${activity}::bigint[]) AS m(id, activity)
          WHERE o.workspace_id = ${workspaceId} AND o.id = m.id`.execute(trx);
      }
    }
    return rows.length;
  });
}

/** Scores the queued organisations of one workspace; answers the rows taken. */
export async function scoreQueued(
  db: Kysely<Database>,
  failed: ScoringFailed = () => {},
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const claimed = await claimQueued(trx, 'scoring_queue', CHUNK);
    if (!claimed) return 0;
    await scoredApart(trx, claimed.workspaceId, failed, claimed.organisationIds);
    return claimed.taken;
  });
}

function byWorkspace<T extends { workspace_id: string }>(rows: T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) map.set(row.workspace_id, [...(map.get(row.workspace_id) ?? []), row]);
  return map;
}
