import { type Kysely, sql } from 'kysely';

/**
 * The collector's inbox (contract §19): a collect request is acknowledged once its kept
 * events are appended here; workers process them into sessions and organisations.
 *
 * - ingest_inbox: one row per acknowledged request, its record (ingest/record.ts) as JSON.
 *   `shard` spreads visitors over INGEST_SHARDS lanes; one worker at a time holds a lane
 *   (an advisory lock for the length of its transaction), so a visitor's requests are
 *   processed in order and a killed worker's lane is free again at once. A batch takes as
 *   many free lanes as it needs to fill itself (claim_ingest_lanes).
 * - ingest_quarantine: what processing could not handle, with its reason, until
 *   `footfall ingest replay` sends it back to the inbox.
 * - ingest_event_ids: the tracker's event ids already stored, once per workspace, so a
 *   request sent again stores nothing twice; kept 30 days (ingest/drain.ts).
 * - lock_tracking_scripts gains `keep_unlinked`: a worker stores what was acknowledged
 *   before an unlink (the append share-locked the script, so the unlink came after), and
 *   refuses only the scripts of deleted workspaces.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE ingest_inbox (
      workspace_id uuid NOT NULL,
      id bigserial NOT NULL,
      shard smallint NOT NULL,
      events integer NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      record json NOT NULL,
      PRIMARY KEY (workspace_id, id)
    );
    CREATE INDEX ingest_inbox_shard_idx ON ingest_inbox (shard, id);
    CREATE INDEX ingest_inbox_received_idx ON ingest_inbox (received_at);

    CREATE TABLE ingest_quarantine (
      workspace_id uuid NOT NULL,
      id bigint NOT NULL,
      shard smallint NOT NULL,
      events integer NOT NULL,
      received_at timestamptz NOT NULL,
      record json NOT NULL,
      reason text NOT NULL,
      detail text NOT NULL DEFAULT '',
      quarantined_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, id)
    );

    CREATE TABLE ingest_event_ids (
      workspace_id uuid NOT NULL,
      event_id uuid NOT NULL,
      seen_on date NOT NULL DEFAULT current_date,
      PRIMARY KEY (workspace_id, event_id)
    );
    CREATE INDEX ingest_event_ids_seen_idx ON ingest_event_ids (seen_on);

    -- Lanes from 'start' on (round the ring) that hold rows and that no other transaction
    -- holds, taken until they hold 'wanted' rows between them (so a batch is large however
    -- thinly the rows are spread); empty when there is none. The locks last until this
    -- transaction ends.
    CREATE FUNCTION claim_ingest_lanes(start integer, shards integer, wanted integer)
    RETURNS integer[] LANGUAGE plpgsql AS $$
    DECLARE
      lane integer;
      held integer;
      lanes integer[] := '{}';
      total integer := 0;
    BEGIN
      FOR step IN 0 .. shards - 1 LOOP
        lane := (start + step) % shards;
        SELECT count(*) INTO held FROM (
          SELECT 1 FROM ingest_inbox WHERE shard = lane LIMIT wanted - total) r;
        IF held > 0 AND pg_try_advisory_xact_lock(1229866837, lane) THEN
          lanes := lanes || lane;
          total := total + held;
          EXIT WHEN total >= wanted;
        END IF;
      END LOOP;
      RETURN lanes;
    END $$;

    DROP FUNCTION lock_tracking_scripts(text[]);
    CREATE FUNCTION lock_tracking_scripts(ids text[], keep_unlinked boolean DEFAULT false)
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      gone jsonb;
    BEGIN
      PERFORM 1 FROM tracking_scripts WHERE id = ANY(ids) ORDER BY id FOR SHARE;
      SELECT jsonb_object_agg(k.id, CASE WHEN t.id IS NULL THEN 'deleted' ELSE 'revoked' END)
      INTO gone
      FROM unnest(ids) AS k(id) LEFT JOIN tracking_scripts t ON t.id = k.id
      WHERE t.id IS NULL OR (t.revoked_at IS NOT NULL AND NOT keep_unlinked);
      IF gone IS NOT NULL THEN
        RAISE EXCEPTION 'tracking scripts no longer active' USING ERRCODE = 'FF410', DETAIL = gone::text;
      END IF;
    END $$;
  `.execute(db);
}
