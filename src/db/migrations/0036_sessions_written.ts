import { type Kysely, sql } from 'kysely';

/**
 * A check for the writer's statement (ingest/store.ts): the visitors' stored sessions it
 * updates must all still be there. Retention, forget and the purge delete sessions without
 * the visitors' locks, so one can go between the writer's read and its write; its events
 * would then be stored under a session that no longer exists. The statement fails instead,
 * as a serialization failure, and the batch is done again: it reads the visitor's sessions
 * afresh and starts a new one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION sessions_written(updated bigint, expected integer) RETURNS boolean
    LANGUAGE plpgsql AS $$
    BEGIN
      IF updated < expected THEN
        RAISE EXCEPTION 'a session of the batch was deleted meanwhile'
          USING ERRCODE = 'serialization_failure';
      END IF;
      RETURN true;
    END $$
  `.execute(db);
}
