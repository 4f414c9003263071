import { type Kysely, sql } from 'kysely';

/**
 * The URLs of a session's page views on the session itself, for stats over a segment
 * (issue "storage at scale").
 *
 * A segment's top pages count the views of its organisations' sessions. There is no rollup
 * of pages per organisation (it would be nearly as large as the events, and every path that
 * moves a session to another organisation, deletes or extends it would have to keep it), so
 * they were counted from the events: for a year of 824 organisations, 82,000 sessions each
 * looked up in the events, 850 ms on the year-of-traffic bench. With the URLs on the session,
 * a session wholly inside the range is counted from its own row, read anyway for the
 * segment's visitors; only the few that cross the range's ends are looked up in the events
 * (src/stats/store.ts). What moves, deletes or extends a session moves its pages with it.
 *
 * `pages` holds the session's page views' URLs as its events hold them, in the order the
 * writer stored them; NULL when they are not all there: sessions stored before this
 * migration, sessions of more than SESSION_PAGES_KEPT views (each write of a session rewrites
 * its row, so the row stays small), sessions some of whose events a forget deleted. Readers
 * count those from the events. Adding a column without a default rewrites nothing.
 *
 * The segment's visitors are read from the same sessions: their visitor, start and end. The
 * index by organisation and start now carries the end and the visitor, so that read no longer
 * fetches each session's row (82,000 scattered rows): 650 → 330 ms on the year data set. It
 * replaces the index it extends (a backward scan gives the newest first, as its DESC did),
 * so the writer keeps one index there, a little wider. Building it holds writes to sessions
 * for its time (10 s for 10 million sessions).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sessions ADD COLUMN pages text[]`.execute(db);
  await sql`
    DROP INDEX sessions_organisation_idx;
    CREATE INDEX sessions_organisation_idx ON sessions (workspace_id, organisation_id, started_at)
      INCLUDE (ended_at, visitor_id)`.execute(db);
}
