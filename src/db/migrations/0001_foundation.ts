import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE operators (
      id uuid PRIMARY KEY,
      email text NOT NULL,
      name text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX operators_email_key ON operators (lower(email));

    CREATE TABLE access_tokens (
      id uuid PRIMARY KEY,
      operator_id uuid NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
      name text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz,
      revoked_at timestamptz
    );
    CREATE INDEX access_tokens_operator_idx ON access_tokens (operator_id);

    CREATE TABLE workspaces (
      id uuid PRIMARY KEY,
      operator_id uuid NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
      name text NOT NULL,
      url text NOT NULL,
      usage_limit integer NOT NULL CHECK (usage_limit BETWEEN 0 AND 10000000),
      form_tracking boolean NOT NULL DEFAULT true,
      click_tracking boolean NOT NULL DEFAULT true,
      download_tracking boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX workspaces_operator_idx ON workspaces (operator_id, created_at, id);

    -- Every id ever issued stays here, so the collector can tell a revoked script (410)
    -- from one that never existed (404).
    CREATE TABLE tracking_scripts (
      id text PRIMARY KEY,
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    );
    CREATE UNIQUE INDEX tracking_scripts_active_key ON tracking_scripts (workspace_id)
      WHERE revoked_at IS NULL;

    CREATE TABLE workspace_tags (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, name)
    );
    CREATE UNIQUE INDEX workspace_tags_name_key ON workspace_tags (workspace_id, lower(name));

    CREATE TABLE custom_fields (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      key text NOT NULL,
      identifier uuid NOT NULL UNIQUE,
      name text NOT NULL,
      type text NOT NULL,
      description text NOT NULL DEFAULT '',
      "group" text NOT NULL DEFAULT 'custom',
      is_visible boolean NOT NULL DEFAULT true,
      source text NOT NULL DEFAULT 'manual',
      rules jsonb NOT NULL DEFAULT '[]',
      is_system boolean NOT NULL DEFAULT false,
      options jsonb NOT NULL DEFAULT '[]',
      visible_in_spotter boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, key)
    );

    CREATE TABLE segments (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      id uuid NOT NULL,
      name text NOT NULL,
      filters jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, id)
    );
    CREATE INDEX segments_name_idx ON segments (workspace_id, name);

    CREATE TABLE webhook_configs (
      operator_id uuid PRIMARY KEY REFERENCES operators (id) ON DELETE CASCADE,
      url text,
      secret_encrypted bytea NOT NULL,
      mode text NOT NULL DEFAULT 'session',
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db);
}
