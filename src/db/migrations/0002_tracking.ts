import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE organisations (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      id uuid NOT NULL,
      domain text NOT NULL,
      name text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, id),
      UNIQUE (workspace_id, domain)
    );

    -- The operator's own IP-range data (footfall import ip-ranges): instance-wide.
    CREATE TABLE ip_ranges (
      network cidr PRIMARY KEY,
      domain text NOT NULL,
      name text NOT NULL DEFAULT '',
      imported_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX ip_ranges_network_idx ON ip_ranges USING gist (network inet_ops);

    CREATE TABLE sessions (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      id uuid NOT NULL,
      visitor_id uuid NOT NULL,
      organisation_id uuid,
      started_at timestamptz NOT NULL,
      ended_at timestamptz NOT NULL,
      referrer text NOT NULL DEFAULT '',
      -- When the page view that gave the referrer happened; an earlier one replaces it.
      referrer_at timestamptz,
      country text NOT NULL DEFAULT '',
      state text NOT NULL DEFAULT '',
      city text NOT NULL DEFAULT '',
      latitude double precision NOT NULL DEFAULT 0,
      longitude double precision NOT NULL DEFAULT 0,
      browser text NOT NULL DEFAULT '',
      device_type text NOT NULL DEFAULT '',
      PRIMARY KEY (workspace_id, id),
      FOREIGN KEY (workspace_id, organisation_id) REFERENCES organisations (workspace_id, id)
        ON DELETE SET NULL (organisation_id)
    );
    -- Without ended_at, so extending a session (the commonest write) can be a HOT update.
    CREATE INDEX sessions_visitor_idx ON sessions (workspace_id, visitor_id);
    CREATE INDEX sessions_started_idx ON sessions (workspace_id, started_at DESC, id);
    CREATE INDEX sessions_organisation_idx
      ON sessions (workspace_id, organisation_id, started_at DESC);

    CREATE TABLE events (
      workspace_id uuid NOT NULL,
      session_id uuid NOT NULL,
      id bigint GENERATED ALWAYS AS IDENTITY,
      type text NOT NULL,
      ts timestamptz NOT NULL,
      url text NOT NULL,
      -- The type's own fields (contract §5), as the collector accepted them.
      data jsonb NOT NULL DEFAULT '{}',
      -- No foreign key to sessions: its check locks the session row the same transaction
      -- just wrote, which made the insert several times slower (docs/performance.md). The
      -- writer inserts a session and its events together; deletes remove both.
      PRIMARY KEY (workspace_id, session_id, id)
    );

    CREATE TABLE segment_members (
      workspace_id uuid NOT NULL,
      segment_id uuid NOT NULL,
      organisation_id uuid NOT NULL,
      PRIMARY KEY (workspace_id, segment_id, organisation_id),
      FOREIGN KEY (workspace_id, segment_id) REFERENCES segments (workspace_id, id) ON DELETE CASCADE,
      FOREIGN KEY (workspace_id, organisation_id) REFERENCES organisations (workspace_id, id)
        ON DELETE CASCADE
    );
  `.execute(db);
}
