import { type Kysely, sql } from 'kysely';

/**
 * The ingest writer's per-row costs, moved out of its transaction.
 *
 * Stats rollups (0011, 0023). Their statement-level triggers added each statement's changes
 * to the rollup rows at once, so every batch of the ingest workers locked the same rows (a
 * workspace's day, its busiest pages) from its first write of sessions to its commit, and
 * two workers of one workspace ran one after the other. The triggers still work out each
 * statement's changes from its transition tables, the one place that sees exactly what a
 * statement changed (what another transaction changed meanwhile, an identified visitor's
 * earlier sessions and the events that follow their attribution included). In a transaction
 * that called stats_defer_rollups() they leave those changes in temporary tables of the
 * connection instead, and the writer adds their sums to the rollups last, just before its
 * commit (src/stats/rollups.ts). Every other path (mend, forget, retention, the purge, an
 * organisation's deletion, late attribution) keeps the rollups at once, as before.
 *
 * - stats_add_sessions, stats_add_pages and stats_add_visitors, which the triggers call,
 *   are renamed stats_apply_*; functions of the old names apply or defer.
 * - stats_defer_rollups(): the temporary tables (made once per connection, emptied at each
 *   commit) and the setting `footfall.rollups = 'writer'`, for the rest of the transaction.
 *
 * The contact links' foreign key (0006). Its check locked, for every link the writer
 * inserted, the contact row the same statement had just upserted (0.32 ms a link), as the
 * events' key to sessions once did (0002). The key now holds by construction, as that one
 * does: the writer links only contacts its own statement upserted, which it holds locked to
 * its commit (contacts/store.ts), and a statement-level trigger deletes the links of deleted
 * contacts, as the cascade did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER FUNCTION stats_add_sessions(uuid[], uuid[], date[], text[], integer[], bigint[])
      RENAME TO stats_apply_sessions;
    ALTER FUNCTION stats_add_pages(uuid[], date[], text[], bigint[], bigint[])
      RENAME TO stats_apply_pages;
    ALTER FUNCTION stats_add_visitors(uuid[], uuid[], date[], integer[], integer[])
      RENAME TO stats_apply_visitors;

    CREATE FUNCTION stats_defer_rollups() RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      -- Made together, so one stands for the three.
      IF to_regclass('pg_temp.stats_session_changes') IS NULL THEN
        CREATE TEMPORARY TABLE stats_session_changes (
          workspace_id uuid, organisation_id uuid, day date, source text,
          sessions integer, pageviews bigint
        ) ON COMMIT DELETE ROWS;
        CREATE TEMPORARY TABLE stats_page_changes (
          workspace_id uuid, day date, url text, pageviews bigint, attributed_pageviews bigint
        ) ON COMMIT DELETE ROWS;
        CREATE TEMPORARY TABLE stats_visitor_changes (
          workspace_id uuid, visitor_id uuid, day date, sessions integer,
          attributed_sessions integer
        ) ON COMMIT DELETE ROWS;
      END IF;
      PERFORM set_config('footfall.rollups', 'writer', true);
    END $$;

    CREATE FUNCTION stats_add_sessions(
      workspaces uuid[], organisations uuid[], days date[], sources text[],
      session_counts integer[], pageview_counts bigint[]
    ) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('footfall.rollups', true) = 'writer' THEN
        INSERT INTO pg_temp.stats_session_changes
        SELECT * FROM unnest(workspaces, organisations, days, sources, session_counts,
          pageview_counts);
      ELSE
        PERFORM stats_apply_sessions(workspaces, organisations, days, sources, session_counts,
          pageview_counts);
      END IF;
    END $$;

    CREATE FUNCTION stats_add_pages(
      workspaces uuid[], days date[], urls text[], counts bigint[], attributed_counts bigint[]
    ) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('footfall.rollups', true) = 'writer' THEN
        INSERT INTO pg_temp.stats_page_changes
        SELECT * FROM unnest(workspaces, days, urls, counts, attributed_counts);
      ELSE
        PERFORM stats_apply_pages(workspaces, days, urls, counts, attributed_counts);
      END IF;
    END $$;

    CREATE FUNCTION stats_add_visitors(
      workspaces uuid[], visitors uuid[], days date[], session_counts integer[],
      attributed_counts integer[]
    ) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('footfall.rollups', true) = 'writer' THEN
        INSERT INTO pg_temp.stats_visitor_changes
        SELECT * FROM unnest(workspaces, visitors, days, session_counts, attributed_counts);
      ELSE
        PERFORM stats_apply_visitors(workspaces, visitors, days, session_counts,
          attributed_counts);
      END IF;
    END $$;

    ALTER TABLE contact_visitors DROP CONSTRAINT contact_visitors_workspace_id_contact_id_fkey;
    -- Through the links' key, contact by contact, whatever number of contacts a kept plan
    -- was made for (a purge deletes 5,000 at once).
    CREATE FUNCTION contact_visitors_follow_contacts() RETURNS trigger LANGUAGE plpgsql
    SET enable_hashjoin = off SET enable_mergejoin = off
    AS $$
    BEGIN
      DELETE FROM contact_visitors cv USING old_rows c
      WHERE cv.workspace_id = c.workspace_id AND cv.contact_id = c.id;
      RETURN NULL;
    END $$;
    CREATE TRIGGER contact_visitors_follow_contacts AFTER DELETE ON contacts
      REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION contact_visitors_follow_contacts();
  `.execute(db);
}
