import { type Kysely, sql } from 'kysely';

/**
 * lock_tracking_scripts holds a tracking script still with a shared advisory lock (the
 * two-key form: class 1953653107, the hash of the script's id) instead of a share lock of
 * its row; a trigger takes the same key exclusively before a script is unlinked
 * (revoked_at set) or deleted, whatever the path. So as before, an unlink waits for the
 * appends and batches under way, and those after it see it. What changes is the cost: a
 * row lock writes the row's page, and two appends at once turn its locker into a
 * multixact that every later reader of the row looks up; an advisory lock lives in memory
 * only. A collision of two ids' hashes only makes an unlink wait for the other script's
 * appends too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION lock_tracking_scripts(ids text[], keep_unlinked boolean DEFAULT false)
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      gone jsonb;
    BEGIN
      -- In key order, so appends and the unlinks they wait for rarely wait in a circle
      -- (PostgreSQL breaks one that does, and the append is done again).
      PERFORM pg_advisory_xact_lock_shared(1953653107, key)
      FROM (SELECT DISTINCT hashtext(id) AS key FROM unnest(ids) AS k(id) ORDER BY 1) k;
      -- A statement of its own after the lock: its snapshot holds what the lock waited for.
      SELECT jsonb_object_agg(k.id, CASE WHEN t.id IS NULL THEN 'deleted' ELSE 'revoked' END)
      INTO gone
      FROM unnest(ids) AS k(id) LEFT JOIN tracking_scripts t ON t.id = k.id
      WHERE t.id IS NULL OR (t.revoked_at IS NOT NULL AND NOT keep_unlinked);
      IF gone IS NOT NULL THEN
        RAISE EXCEPTION 'tracking scripts no longer active' USING ERRCODE = 'FF410', DETAIL = gone::text;
      END IF;
    END $$;

    CREATE FUNCTION tracking_script_held() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(1953653107, hashtext(OLD.id));
      RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END $$;
    CREATE TRIGGER tracking_script_unlinked BEFORE UPDATE ON tracking_scripts
      FOR EACH ROW WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at)
      EXECUTE FUNCTION tracking_script_held();
    CREATE TRIGGER tracking_script_deleted BEFORE DELETE ON tracking_scripts
      FOR EACH ROW EXECUTE FUNCTION tracking_script_held();
  `.execute(db);
}
