import { type Kysely, sql } from 'kysely';

/**
 * The schema's pure functions are marked PARALLEL SAFE (issue "storage at scale").
 *
 * PostgreSQL takes a function as PARALLEL UNSAFE unless it is told otherwise, and decides
 * whether a query may use parallel workers before it inlines SQL functions: one unmarked
 * call anywhere keeps the whole query on one process. `session_micros` is in the pass of a
 * month's sessions that retention makes for their organisations and places,
 * `stats_session_days` in a segment's visitors by day and in retention's later days of a
 * month, `domain_and_parents` in the organisations list's hidden-company check. Each reads
 * only its arguments (all three are IMMUTABLE), so workers may run it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER FUNCTION session_micros(timestamptz, timestamptz) PARALLEL SAFE;
    ALTER FUNCTION stats_session_days(timestamptz, timestamptz) PARALLEL SAFE;
    ALTER FUNCTION domain_and_parents(text) PARALLEL SAFE`.execute(db);
}
