import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- The company directory (footfall import companies): instance-wide, keyed by domain.
    CREATE TABLE companies (
      domain text PRIMARY KEY,
      name text NOT NULL DEFAULT '',
      website text NOT NULL DEFAULT '',
      logo text NOT NULL DEFAULT '',
      founded text NOT NULL DEFAULT '',
      size text NOT NULL DEFAULT '',
      industry text NOT NULL DEFAULT '',
      phone text NOT NULL DEFAULT '',
      email text NOT NULL DEFAULT '',
      address jsonb NOT NULL DEFAULT '{}',
      profiles jsonb NOT NULL DEFAULT '[]',
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE INDEX organisations_created_idx ON organisations (workspace_id, created_at);

    CREATE TABLE organisation_tags (
      workspace_id uuid NOT NULL,
      organisation_id uuid NOT NULL,
      name text NOT NULL,
      PRIMARY KEY (workspace_id, organisation_id, name),
      FOREIGN KEY (workspace_id, organisation_id) REFERENCES organisations (workspace_id, id)
        ON DELETE CASCADE
    );

    CREATE TABLE custom_field_values (
      workspace_id uuid NOT NULL,
      organisation_id uuid NOT NULL,
      key text NOT NULL,
      value jsonb NOT NULL,
      PRIMARY KEY (workspace_id, organisation_id, key),
      FOREIGN KEY (workspace_id, organisation_id) REFERENCES organisations (workspace_id, id)
        ON DELETE CASCADE,
      FOREIGN KEY (workspace_id, key) REFERENCES custom_fields (workspace_id, key)
        ON DELETE CASCADE
    );

    -- Visitors the identity layer named: they stay identified.
    CREATE TABLE visitors (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      id uuid NOT NULL,
      organisation_id uuid,
      email text NOT NULL DEFAULT '',
      identified_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, id),
      FOREIGN KEY (workspace_id, organisation_id) REFERENCES organisations (workspace_id, id)
        ON DELETE SET NULL (organisation_id)
    );
  `.execute(db);
}
