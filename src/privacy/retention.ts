import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { deliveryTables, sessionDeliveriesGone } from '../outbox/deliveries.js';
import { markSegmentsStale } from '../outbox/segment-queue.js';

const DAY_MS = 86_400_000;
const JOB = 'retention';
// One advisory lock for the job across all servers on the database ("footfall" in hex).
const LOCK_KEY = '7381240860008082540';

export interface Expired {
  sessions: number;
  events: number;
  /** Deliveries of every subscriber (webhooks, alerts, …) that carried those sessions. */
  deliveries: number;
}

/**
 * Deletes the sessions whose last event is older than `days` days before `now`, with their
 * events and every subscriber's deliveries that carry them, a batch of sessions per statement so
 * that no transaction grows large or holds locks for long. Sessions that started before the
 * limit but ended after it stay whole.
 */
export async function deleteExpired(
  db: Kysely<Database>,
  days: number,
  now = new Date(),
  batch = 1000,
): Promise<Expired> {
  const cutoff = new Date(now.getTime() - days * DAY_MS).toISOString();
  const total: Expired = { sessions: 0, events: 0, deliveries: 0 };
  const tables = await deliveryTables(db);
  const workspaces = await db.selectFrom('workspaces').select('id').execute();
  for (const { id } of workspaces) {
    const removedBefore = total.sessions;
    for (;;) {
      // started_at first: it is what the workspace's session index can range over.
      const { rows } = await sql<Expired>`
        WITH doomed AS (
          SELECT id FROM sessions
          WHERE workspace_id = ${id} AND started_at < ${cutoff}::timestamptz
            AND ended_at < ${cutoff}::timestamptz
          ORDER BY started_at LIMIT ${batch}
          -- Waits rather than skips: the webhook worker marks idle sessions for a moment,
          -- and a skipped session would outlive the limit by a day.
          FOR UPDATE
        ), events_gone AS (
          DELETE FROM events e USING doomed d
          WHERE e.workspace_id = ${id} AND e.session_id = d.id RETURNING 1
        )${sessionDeliveriesGone(tables, id)}, sessions_gone AS (
          DELETE FROM sessions s USING doomed d
          WHERE s.workspace_id = ${id} AND s.id = d.id RETURNING 1
        )
        SELECT (SELECT count(*) FROM sessions_gone)::int AS sessions,
               (SELECT count(*) FROM events_gone)::int AS events,
               (SELECT n FROM deliveries_gone) AS deliveries`.execute(db);
      const done = rows[0] ?? { sessions: 0, events: 0, deliveries: 0 };
      total.sessions += done.sessions;
      total.events += done.events;
      total.deliveries += done.deliveries;
      if (done.sessions < batch) break;
    }
    // Its organisations lost sessions: the segment worker computes its segments again.
    if (total.sessions > removedBefore) await markSegmentsStale(db, id);
  }
  return total;
}

/**
 * Runs the retention job when a day has passed since it last ran on this database. Of
 * several servers, the one holding the advisory lock runs it; the others skip. Null when
 * it did not run here.
 */
export async function runRetentionIfDue(
  db: Kysely<Database>,
  days: number,
  now = new Date(),
): Promise<Expired | null> {
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{ locked: boolean }>`
      SELECT pg_try_advisory_lock(${LOCK_KEY}::bigint) AS locked`.execute(connection);
    if (!rows[0]?.locked) return null;
    try {
      // Marked before it runs: a run cut short is taken up again the next day.
      const due = await sql`
        INSERT INTO scheduled_jobs (name, last_run_at) VALUES (${JOB}, ${now.toISOString()})
        ON CONFLICT (name) DO UPDATE SET last_run_at = excluded.last_run_at
        WHERE scheduled_jobs.last_run_at <= excluded.last_run_at - interval '1 day'
        RETURNING name`.execute(connection);
      if (due.rows.length === 0) return null;
      return await deleteExpired(connection, days, now);
    } finally {
      await sql`SELECT pg_advisory_unlock(${LOCK_KEY}::bigint)`.execute(connection);
    }
  });
}
