import { type Kysely, sql } from 'kysely';

/**
 * `lock_tracking_scripts(ids)`, the collector's check that the scripts of a group write are
 * still active, in the write's own transaction (docs/architecture.md, Ingest). It takes a
 * share lock on each script's row, which an unlink (an UPDATE of the row) and a workspace's
 * deletion (a DELETE of it) must wait for: a write either commits before the unlink or
 * delete answers, or it waits and sees it. A script no longer active raises SQLSTATE FF410
 * with, as DETAIL, a JSON object of the ids that are gone, each 'revoked' or 'deleted'.
 * One statement that raises, rather than one that answers rows, so it can travel in the
 * round trip of the write's first locks.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION lock_tracking_scripts(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      gone jsonb;
    BEGIN
      -- In id order, so writers and the unlinks they wait for never wait in a circle.
      PERFORM 1 FROM tracking_scripts WHERE id = ANY(ids) ORDER BY id FOR SHARE;
      -- A statement of its own after the lock: its snapshot holds what the lock waited for.
      SELECT jsonb_object_agg(k.id, CASE WHEN t.id IS NULL THEN 'deleted' ELSE 'revoked' END)
      INTO gone
      FROM unnest(ids) AS k(id) LEFT JOIN tracking_scripts t ON t.id = k.id
      WHERE t.id IS NULL OR t.revoked_at IS NOT NULL;
      IF gone IS NOT NULL THEN
        RAISE EXCEPTION 'tracking scripts no longer active' USING ERRCODE = 'FF410', DETAIL = gone::text;
      END IF;
    END $$`.execute(db);
}
