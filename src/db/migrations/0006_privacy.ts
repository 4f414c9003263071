import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- People who gave an email address (identify() or a form): one per address and workspace.
    CREATE TABLE contacts (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      id uuid NOT NULL,
      email text NOT NULL,
      organisation_id uuid,
      traits jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, id),
      UNIQUE (workspace_id, email),
      FOREIGN KEY (workspace_id, organisation_id) REFERENCES organisations (workspace_id, id)
        ON DELETE SET NULL (organisation_id)
    );
    CREATE INDEX contacts_organisation_idx ON contacts (workspace_id, organisation_id);

    -- The visitor ids (browsers) a contact identified from; a browser may be shared.
    CREATE TABLE contact_visitors (
      workspace_id uuid NOT NULL,
      contact_id uuid NOT NULL,
      visitor_id uuid NOT NULL,
      PRIMARY KEY (workspace_id, contact_id, visitor_id),
      FOREIGN KEY (workspace_id, contact_id) REFERENCES contacts (workspace_id, id)
        ON DELETE CASCADE
    );
    CREATE INDEX contact_visitors_visitor_idx ON contact_visitors (workspace_id, visitor_id);

    -- Global Privacy Control: when set, browsers that send it are not tracked.
    ALTER TABLE workspaces ADD COLUMN honor_gpc boolean NOT NULL DEFAULT false;

    -- Forgetting a person and retention delete deliveries by the sessions they carry.
    CREATE INDEX webhook_deliveries_session_idx ON webhook_deliveries (workspace_id, session_id)
      WHERE session_id IS NOT NULL;

    -- When a periodic job last ran, so that one of several servers runs it once per period.
    CREATE TABLE scheduled_jobs (
      name text PRIMARY KEY,
      last_run_at timestamptz NOT NULL
    );
  `.execute(db);
}
