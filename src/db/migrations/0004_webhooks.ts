import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- The webhook outbox: rows are written in the transaction of the data that causes them,
    -- and the delivery worker sends, signs and retries them. Delivered and failed rows stay
    -- as the deliveries log.
    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY,
      operator_id uuid NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
      workspace_id uuid NOT NULL,
      event text NOT NULL,
      organisation_id uuid,
      session_id uuid,
      event_id bigint,
      segment_id uuid,
      -- Rendered at the first attempt and sent unchanged on every retry.
      body text,
      status text NOT NULL DEFAULT 'pending',
      attempts integer NOT NULL DEFAULT 0,
      last_status_code integer,
      last_error text NOT NULL DEFAULT '',
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz
    );
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
      WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_operator_idx
      ON webhook_deliveries (operator_id, created_at DESC, id);

    -- Set once session.ended has been decided for the session (sent or not configured).
    -- Only recent sessions are unnotified, so the scan needs no index on ended_at; one
    -- there would make every extension of a session a non-HOT update (docs/performance.md).
    ALTER TABLE sessions ADD COLUMN ended_notified boolean NOT NULL DEFAULT false;
    CREATE INDEX sessions_unnotified_idx ON sessions (workspace_id) WHERE NOT ended_notified;
    -- Room on each page for the new versions of a session as it grows (HOT updates).
    ALTER TABLE sessions SET (fillfactor = 85);
  `.execute(db);
}
