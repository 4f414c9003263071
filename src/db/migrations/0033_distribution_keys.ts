import { type Kysely, sql } from 'kysely';

/**
 * Keys ready for distribution by workspace (contract §19, docs/scaling.md): Citus needs every
 * primary key and unique constraint of a distributed table to include the distribution
 * column, and foreign keys between distributed tables to join on it. Every workspace table
 * already has a `workspace_id`; these are the keys that did not lead with it.
 *
 * - Delivery and outbox rows, tracking scripts, invites and Zapier hooks were keyed by their
 *   id (or secret hash) alone: the key becomes (workspace_id, id). Ids stay unique on their
 *   own in practice (random UUIDs, a sequence, a hash of a random secret); the key no longer
 *   says so, which distribution cannot enforce anyway.
 * - A Zapier delivery refers to its hook by (workspace_id, hook_id), still ON DELETE CASCADE.
 * - A custom field's identifier is unique within its workspace.
 * - A test ping belongs to no workspace: it is kept under the nil UUID, which no workspace
 *   has (workspace ids are random UUIDs), so that every delivery has a distribution key. The
 *   purge and retention work by workspace and still never see pings.
 *
 * - Each of those tables keeps a plain index on its id (or secret hash): the workers find a
 *   claimed delivery by id, the outbox fan-out takes the oldest ids first, the collector and
 *   an invite's link find a script or an invite without knowing the workspace. Citus allows
 *   any index that is not unique.
 *
 * No row is rewritten but pings, and no column added: each step swaps indexes. Tables are
 * locked while their new key is built, which on these tables (deliveries, the outbox, which
 * are kept short) takes moments.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE webhook_deliveries SET workspace_id = '00000000-0000-0000-0000-000000000000'
    WHERE workspace_id IS NULL;
    ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_workspace_check;
    ALTER TABLE webhook_deliveries ALTER COLUMN workspace_id SET NOT NULL;
    ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_workspace_check
      CHECK (workspace_id <> '00000000-0000-0000-0000-000000000000' OR event = 'ping');
    ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey,
      ADD PRIMARY KEY (workspace_id, id);

    ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_pkey,
      ADD PRIMARY KEY (workspace_id, id);
    ALTER TABLE crm_deliveries DROP CONSTRAINT crm_deliveries_pkey,
      ADD PRIMARY KEY (workspace_id, id);
    ALTER TABLE tracking_scripts DROP CONSTRAINT tracking_scripts_pkey,
      ADD PRIMARY KEY (workspace_id, id);
    ALTER TABLE invites DROP CONSTRAINT invites_pkey,
      ADD PRIMARY KEY (workspace_id, secret_hash);
    ALTER TABLE custom_fields DROP CONSTRAINT custom_fields_identifier_key,
      ADD CONSTRAINT custom_fields_identifier_key UNIQUE (workspace_id, identifier);

    ALTER TABLE zapier_deliveries DROP CONSTRAINT zapier_deliveries_hook_id_fkey;
    ALTER TABLE zapier_hooks DROP CONSTRAINT zapier_hooks_pkey,
      ADD PRIMARY KEY (workspace_id, id);
    ALTER TABLE zapier_deliveries DROP CONSTRAINT zapier_deliveries_pkey,
      ADD PRIMARY KEY (workspace_id, id),
      ADD CONSTRAINT zapier_deliveries_hook_id_fkey FOREIGN KEY (workspace_id, hook_id)
        REFERENCES zapier_hooks (workspace_id, id) ON DELETE CASCADE;

    CREATE INDEX webhook_deliveries_id_idx ON webhook_deliveries (id);
    CREATE INDEX outbox_events_id_idx ON outbox_events (id);
    CREATE INDEX crm_deliveries_id_idx ON crm_deliveries (id);
    CREATE INDEX tracking_scripts_id_idx ON tracking_scripts (id);
    CREATE INDEX invites_secret_hash_idx ON invites (secret_hash);
    CREATE INDEX zapier_hooks_id_idx ON zapier_hooks (id);
    CREATE INDEX zapier_deliveries_id_idx ON zapier_deliveries (id);
  `.execute(db);
}
