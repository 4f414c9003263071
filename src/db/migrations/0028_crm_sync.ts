import { type Kysely, sql } from 'kysely';

/**
 * HubSpot and Pipedrive sync (contract §18), an outbox subscriber.
 *
 * - crm_connections: a workspace's connection to a CRM: its token (AES-GCM, never shown
 *   again), what qualifies (minimum score, a segment), what the CRM was set up with (the
 *   Pipedrive fields' keys), whether it failed (a refused token) or is asked to wait (a
 *   429), and the last backfill.
 * - crm_records: which CRM object a domain (companies) or an e-mail address (contacts) is.
 *   A row without `remote_id` is a creation under way, leased to one worker until
 *   `creating_until`: whoever inserts it creates the object, everyone else waits, and a
 *   worker that died leaves it to the next, which looks the domain up in the CRM first.
 *   That is how a company is never created twice, by concurrent workers or after a restart.
 * - crm_deliveries: what is to be sent: a company (created or updated), a note for an
 *   ended session, a contact. At most one pending company row per organisation (and one
 *   contact row per contact): a change while it is pending bumps `changes`, so the worker
 *   knows whether it sent the latest state. A `*_deliveries` table with workspace_id,
 *   session_id and status, so deleting a workspace, forgetting a person and retention
 *   find it (outbox/deliveries.ts).
 * - crm_buckets: token buckets shared by every server, one per connection and vendor
 *   limit, so all of them together stay under the vendor's documented rate.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE crm_connections (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      name text NOT NULL CHECK (name IN ('hubspot', 'pipedrive')),
      token_encrypted bytea NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      min_score smallint,
      segment_id uuid,
      setup jsonb NOT NULL DEFAULT '{}',
      connected_at timestamptz NOT NULL DEFAULT now(),
      last_synced_at timestamptz,
      last_error text,
      failed_at timestamptz,
      paused_until timestamptz,
      backfill_started_at timestamptz,
      backfill_finished_at timestamptz,
      backfill_total integer NOT NULL DEFAULT 0,
      PRIMARY KEY (workspace_id, name)
    );

    CREATE TABLE crm_records (
      workspace_id uuid NOT NULL,
      integration text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('company', 'contact')),
      key text NOT NULL,
      remote_id text,
      creating_until timestamptz,
      synced_at timestamptz,
      PRIMARY KEY (workspace_id, integration, kind, key),
      FOREIGN KEY (workspace_id, integration)
        REFERENCES crm_connections (workspace_id, name) ON DELETE CASCADE
    );

    CREATE TABLE crm_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id uuid NOT NULL,
      integration text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('company', 'note', 'contact')),
      organisation_id uuid NOT NULL,
      session_id uuid,
      contact_id uuid,
      backfill boolean NOT NULL DEFAULT false,
      changes integer NOT NULL DEFAULT 0,
      status text NOT NULL DEFAULT 'pending',
      attempts integer NOT NULL DEFAULT 0,
      last_status_code integer,
      last_error text NOT NULL DEFAULT '',
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz,
      FOREIGN KEY (workspace_id, integration)
        REFERENCES crm_connections (workspace_id, name) ON DELETE CASCADE
    );
    CREATE INDEX crm_deliveries_due_idx ON crm_deliveries (next_attempt_at)
      WHERE status = 'pending';
    CREATE INDEX crm_deliveries_connection_idx
      ON crm_deliveries (workspace_id, integration, status);
    CREATE UNIQUE INDEX crm_deliveries_company_once
      ON crm_deliveries (workspace_id, integration, organisation_id)
      WHERE kind = 'company' AND status = 'pending';
    CREATE UNIQUE INDEX crm_deliveries_contact_once
      ON crm_deliveries (workspace_id, integration, contact_id)
      WHERE kind = 'contact' AND status = 'pending';

    CREATE TABLE crm_buckets (
      workspace_id uuid NOT NULL,
      integration text NOT NULL,
      bucket text NOT NULL,
      tokens double precision NOT NULL,
      at timestamptz NOT NULL,
      PRIMARY KEY (workspace_id, integration, bucket),
      FOREIGN KEY (workspace_id, integration)
        REFERENCES crm_connections (workspace_id, name) ON DELETE CASCADE
    );
  `.execute(db);
}
