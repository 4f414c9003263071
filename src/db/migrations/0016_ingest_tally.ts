import { type Kysely, sql } from 'kysely';

/**
 * What each workspace's collector received per hour: events stored (reason '') and events
 * dropped, by reason, with the time of the last one. Kept two days, for the dashboard's
 * installation status ("Last event received …, N dropped in the last 24 hours because …").
 * Written by each server's in-memory tally every few seconds, never per event.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE workspace_ingest_hours (
      workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE,
      hour timestamptz NOT NULL,
      reason text NOT NULL,
      events bigint NOT NULL,
      last_at timestamptz NOT NULL,
      PRIMARY KEY (workspace_id, hour, reason)
    )`.execute(db);
}
