import { type Kysely, sql } from 'kysely';

/**
 * Zapier REST hooks (contract §18), an outbox subscriber like the operator webhooks.
 *
 * - zapier_hooks: a workspace's subscriptions, each to one event (`new_lead`,
 *   `new_session`, `contacts_revealed`); made and removed by Zapier (or Make, n8n) through
 *   the API, and removed by Footfall when the hook answers 410 Gone.
 * - zapier_deliveries: one per hook and event, retried on the webhooks' schedule; a
 *   `*_deliveries` table with workspace_id, session_id and status, so deleting a workspace,
 *   forgetting a person and retention find it (outbox/deliveries.ts).
 * - outbox_events.contact_id: the contact a `contact.identified` event is about.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE zapier_hooks (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      id uuid PRIMARY KEY,
      name text NOT NULL DEFAULT '',
      hook_url text NOT NULL,
      event text NOT NULL CHECK (event IN ('new_lead', 'new_session', 'contacts_revealed')),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX zapier_hooks_workspace_idx ON zapier_hooks (workspace_id, event);

    CREATE TABLE zapier_deliveries (
      id uuid PRIMARY KEY,
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      hook_id uuid NOT NULL REFERENCES zapier_hooks (id) ON DELETE CASCADE,
      event text NOT NULL,
      organisation_id uuid,
      session_id uuid,
      contact_id uuid,
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
    CREATE INDEX zapier_deliveries_due_idx ON zapier_deliveries (next_attempt_at)
      WHERE status = 'pending';
    CREATE INDEX zapier_deliveries_hook_idx ON zapier_deliveries (hook_id);

    ALTER TABLE outbox_events ADD COLUMN contact_id uuid;
  `.execute(db);
}
