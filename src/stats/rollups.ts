import type { Transaction } from '../db/transaction.js';

/**
 * The stats rollups of an ingest worker's batch, added once per rollup table, last, just
 * before its commit (migration 0030).
 *
 * Every batch of a busy workspace changes the same rollup rows (the day's visitors, its
 * organisations' days, its busiest pages). Added by the triggers at each statement, as any
 * other path still adds them, those rows stayed locked from the batch's first write of
 * sessions to its commit, so two workers of one workspace ran one after the other. Here
 * the triggers leave each statement's changes in temporary tables; what is added at the
 * commit is their sums per rollup row, which leaves every rollup as the statements one by
 * one would have (each row is a sum, and a row goes when it counts nothing).
 */

/** Each deferred table's sums per rollup row, handed to the function that applies them. */
const APPLY_ROLLUPS = [
  // Pages first, sessions, then visitors: the order in which an UPDATE of sessions by
  // another path (mend, late attribution) reaches them through its triggers.
  `SELECT stats_apply_pages(array_agg(workspace_id), array_agg(day), array_agg(url),
     array_agg(pageviews), array_agg(attributed_pageviews))
   FROM (SELECT workspace_id, day, url, sum(pageviews)::bigint AS pageviews,
           sum(attributed_pageviews)::bigint AS attributed_pageviews
         FROM pg_temp.stats_page_changes GROUP BY 1, 2, 3
         HAVING sum(pageviews) <> 0 OR sum(attributed_pageviews) <> 0) d
   HAVING count(*) > 0`,
  `SELECT stats_apply_sessions(array_agg(workspace_id), array_agg(organisation_id),
     array_agg(day), array_agg(source), array_agg(sessions), array_agg(pageviews))
   FROM (SELECT workspace_id, organisation_id, day, source, sum(sessions)::int AS sessions,
           sum(pageviews)::bigint AS pageviews
         FROM pg_temp.stats_session_changes GROUP BY 1, 2, 3, 4
         HAVING sum(sessions) <> 0 OR sum(pageviews) <> 0) d
   HAVING count(*) > 0`,
  `SELECT stats_apply_visitors(array_agg(workspace_id), array_agg(visitor_id), array_agg(day),
     array_agg(sessions), array_agg(attributed_sessions))
   FROM (SELECT workspace_id, visitor_id, day, sum(sessions)::int AS sessions,
           sum(attributed_sessions)::int AS attributed_sessions
         FROM pg_temp.stats_visitor_changes GROUP BY 1, 2, 3
         HAVING sum(sessions) <> 0 OR sum(attributed_sessions) <> 0) d
   HAVING count(*) > 0`,
].join('; ');

/**
 * Defers the rollups of every statement of `tx` to its commit: the setting goes with the
 * transaction's next statement, the sums with its COMMIT (no round trip of their own).
 */
export function deferRollups<DB>(tx: Transaction<DB>): void {
  tx.lockFirst('SELECT stats_defer_rollups()');
  tx.beforeCommit(APPLY_ROLLUPS);
}
