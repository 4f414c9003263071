import { type Kysely, sql } from 'kysely';

/**
 * One event outbox (docs/architecture.md, "The outbox and its subscribers"): a producer
 * records each domain event once, in the transaction of the data that causes it; the
 * outbox job fans the events out to every subscriber's deliveries and deletes them, so a
 * row lives for a moment. `id` orders the fan-out; the event's columns are what any
 * subscriber may need to decide and render its deliveries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE outbox_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      kind text NOT NULL,
      workspace_id uuid NOT NULL,
      organisation_id uuid,
      session_id uuid,
      event_id bigint,
      segment_id uuid,
      url text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX outbox_events_workspace_idx ON outbox_events (workspace_id, session_id);
  `.execute(db);
}
