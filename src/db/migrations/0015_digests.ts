import { type Kysely, sql } from 'kysely';

/**
 * The digest periods already handled, one row per rule, trigger and period. The digest job
 * inserts the row (ON CONFLICT DO NOTHING) in the transaction that enqueues the digest, so
 * of several servers exactly one sends it, and a restart never sends it again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE digest_periods (
      workspace_id uuid NOT NULL,
      rule_id uuid NOT NULL,
      -- A rule changed from daily to weekly has periods that start on the same day.
      trigger text NOT NULL,
      period_start timestamptz NOT NULL,
      period_end timestamptz NOT NULL,
      -- The delivery enqueued; null when none was (the rule's segment is gone).
      delivery_id uuid,
      organisations integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, rule_id, trigger, period_start),
      FOREIGN KEY (workspace_id, rule_id) REFERENCES notification_rules ON DELETE CASCADE
    )`.execute(db);
}
