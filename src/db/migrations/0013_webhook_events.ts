import { type Kysely, sql } from 'kysely';

/**
 * Contract §15's webhook additions.
 * - `webhook_configs.events`: the kinds a user chose to receive; NULL means every kind,
 *   today's and any added later, so existing configurations keep receiving everything.
 * - A test `ping` belongs to no workspace but goes through the outbox like every delivery
 *   (the log, the retry schedule, the worker's address guard and caps), so
 *   `webhook_deliveries.workspace_id` may be NULL, for pings only. The purge and retention
 *   work by workspace and never see them; a ping goes with its user (ON DELETE CASCADE).
 * - A redelivery starts a new round of attempts on the same row (the same
 *   X-Footfall-Delivery id and body): `redeliveries` counts the rounds asked for,
 *   `redelivered_at` is when the last one was.
 * All are catalogue-only changes: no table is rewritten or scanned. The check is NOT VALID
 * because every existing row already has its workspace (the column was NOT NULL until
 * now); it holds for every row written from here on all the same.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_configs ADD COLUMN events text[];
    ALTER TABLE webhook_deliveries ALTER COLUMN workspace_id DROP NOT NULL;
    ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_workspace_check
      CHECK (workspace_id IS NOT NULL OR event = 'ping') NOT VALID;
    ALTER TABLE webhook_deliveries ADD COLUMN redeliveries integer NOT NULL DEFAULT 0;
    ALTER TABLE webhook_deliveries ADD COLUMN redelivered_at timestamptz;
  `.execute(db);
}
