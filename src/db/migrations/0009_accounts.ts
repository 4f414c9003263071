import { type Kysely, sql } from 'kysely';

/**
 * Users, workspace members with roles, browser sign-in (contract §12). "Operators" become
 * users; every workspace's operator becomes its owner.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE operators RENAME TO users;
    ALTER INDEX operators_email_key RENAME TO users_email_key;
    ALTER TABLE users ADD COLUMN password_hash text;
    -- Bumped on every password change: browser sessions made before it end.
    ALTER TABLE users ADD COLUMN password_changed_at timestamptz;

    ALTER TABLE access_tokens RENAME COLUMN operator_id TO user_id;
    ALTER INDEX access_tokens_operator_idx RENAME TO access_tokens_user_idx;
    ALTER TABLE webhook_configs RENAME COLUMN operator_id TO user_id;
    ALTER TABLE webhook_deliveries RENAME COLUMN operator_id TO user_id;
    ALTER INDEX webhook_deliveries_operator_idx RENAME TO webhook_deliveries_user_idx;

    CREATE TABLE workspace_members (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, user_id)
    );
    CREATE INDEX workspace_members_user_idx ON workspace_members (user_id, workspace_id);
    INSERT INTO workspace_members (workspace_id, user_id, role, created_at)
      SELECT id, operator_id, 'owner', created_at FROM workspaces;

    DROP INDEX workspaces_operator_idx;
    ALTER TABLE workspaces DROP COLUMN operator_id;
    -- Set by DELETE: the workspace is gone from every answer at once, and a background job
    -- purges its rows in batches, then the workspace row itself.
    ALTER TABLE workspaces ADD COLUMN deleted_at timestamptz;
    CREATE INDEX workspaces_deleted_idx ON workspaces (deleted_at) WHERE deleted_at IS NOT NULL;

    -- Secrets are kept only as SHA-256 hashes: a copy of the database signs nobody in.
    CREATE TABLE browser_sessions (
      id_hash bytea PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      csrf text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX browser_sessions_user_idx ON browser_sessions (user_id);
    CREATE INDEX browser_sessions_expiry_idx ON browser_sessions (expires_at);

    -- One-time links: 'setup' (the first user) and 'reset' (choose a new password).
    CREATE TABLE auth_links (
      secret_hash bytea PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('setup', 'reset')),
      user_id uuid REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    );

    CREATE TABLE invites (
      secret_hash bytea PRIMARY KEY,
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      email text NOT NULL,
      role text NOT NULL CHECK (role IN ('admin', 'member')),
      invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    );
    -- One open invite per address and workspace: inviting again replaces the link.
    CREATE UNIQUE INDEX invites_email_key ON invites (workspace_id, lower(email));

    -- Failed sign-ins, keyed by a keyed hash of the address or of the client's network
    -- (never the address or IP itself), for the sign-in limits.
    CREATE TABLE sign_in_failures (
      key bytea NOT NULL,
      failed_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sign_in_failures_key_idx ON sign_in_failures (key, failed_at);
  `.execute(db);
}
