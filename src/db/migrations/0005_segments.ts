import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- A session's page views, kept by the writer (which holds the visitor's lock), so that
    -- organisation figures and segment conditions need not count events.
    ALTER TABLE sessions ADD COLUMN pageviews integer NOT NULL DEFAULT 0;
    UPDATE sessions s SET pageviews = v.n
    FROM (SELECT workspace_id, session_id, count(*)::int AS n FROM events
          WHERE type = 'pageview' GROUP BY workspace_id, session_id) v
    WHERE s.workspace_id = v.workspace_id AND s.id = v.session_id;

    -- When the segment's membership was last computed in full; NULL asks for it again
    -- (a new company directory, a deleted custom field). Segments with relative dates are
    -- computed again as time passes.
    ALTER TABLE segments ADD COLUMN refreshed_at timestamptz;
    ALTER TABLE segments ADD COLUMN relative_dates boolean NOT NULL DEFAULT false;

    -- Organisations whose data changed (sessions written, identities recorded) since their
    -- segments were last evaluated: written in the same transaction as the change, drained
    -- by the segment worker. Append-only, without a key, so writers never wait on each other.
    CREATE TABLE segment_queue (
      workspace_id uuid NOT NULL,
      organisation_id uuid NOT NULL
    );

    CREATE INDEX segment_members_organisation_idx
      ON segment_members (workspace_id, organisation_id);
  `.execute(db);
}
