import { type Kysely, sql } from 'kysely';

/**
 * Notification rules (contract §15) and their own durable outbox. Deliveries are written in
 * the transaction of the data that causes them and sent, retried and logged by the
 * notification worker; `notification_last_alerts` holds when a rule last alerted about an
 * organisation, for the 12-hour rule. Secrets (a Slack URL, a webhook secret) are kept
 * encrypted, like webhook secrets.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE notification_rules (
      workspace_id uuid NOT NULL,
      id uuid NOT NULL,
      name text NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      trigger text NOT NULL,
      -- No foreign key: a rule whose segment is deleted matches nothing rather than everyone.
      segment_id uuid,
      url_contains text,
      channel_type text NOT NULL,
      email_to text[] NOT NULL DEFAULT '{}',
      slack_url_encrypted bytea,
      webhook_url text,
      webhook_secret_encrypted bytea,
      timezone text NOT NULL DEFAULT 'UTC',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, id)
    );
    CREATE INDEX notification_rules_trigger_idx
      ON notification_rules (workspace_id, trigger) WHERE enabled;

    CREATE TABLE notification_deliveries (
      workspace_id uuid NOT NULL,
      id uuid NOT NULL,
      rule_id uuid NOT NULL,
      kind text NOT NULL,
      test boolean NOT NULL DEFAULT false,
      organisation_id uuid,
      session_id uuid,
      segment_id uuid,
      url text,
      period_start timestamptz,
      period_end timestamptz,
      -- What the caller knew (a digest's figures), and the payload rendered at the first
      -- attempt, sent unchanged on every retry.
      data jsonb,
      payload text,
      -- E-mail addresses already sent to, so a retry reaches only the others.
      sent_to text[] NOT NULL DEFAULT '{}',
      status text NOT NULL DEFAULT 'pending',
      attempts integer NOT NULL DEFAULT 0,
      last_status_code integer,
      last_error text NOT NULL DEFAULT '',
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz,
      PRIMARY KEY (workspace_id, id),
      FOREIGN KEY (workspace_id, rule_id) REFERENCES notification_rules ON DELETE CASCADE
    );
    CREATE INDEX notification_deliveries_due_idx ON notification_deliveries (next_attempt_at)
      WHERE status = 'pending';
    CREATE INDEX notification_deliveries_rule_idx
      ON notification_deliveries (workspace_id, rule_id, created_at DESC, id);

    CREATE TABLE notification_last_alerts (
      workspace_id uuid NOT NULL,
      rule_id uuid NOT NULL,
      organisation_id uuid NOT NULL,
      alerted_at timestamptz NOT NULL,
      PRIMARY KEY (workspace_id, rule_id, organisation_id),
      FOREIGN KEY (workspace_id, rule_id) REFERENCES notification_rules ON DELETE CASCADE
    );

    -- Claims the right to alert about an organisation for a rule: true when the last alert
    -- is at least hold old (or there was none), and the time is then taken. A function,
    -- so the outbox's INSERT stays one plain statement that callers can use as a CTE (a
    -- nested data-modifying WITH is not allowed). Concurrent claims wait on the row and
    -- see the winner's time, so two servers never both alert.
    CREATE FUNCTION notification_claim(ws uuid, rule uuid, org uuid, hold interval)
    RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      INSERT INTO notification_last_alerts AS l (workspace_id, rule_id, organisation_id, alerted_at)
      VALUES (ws, rule, org, now())
      ON CONFLICT (workspace_id, rule_id, organisation_id)
        DO UPDATE SET alerted_at = excluded.alerted_at
        WHERE l.alerted_at <= excluded.alerted_at - hold;
      RETURN FOUND;
    END $$;
  `.execute(db);
}
