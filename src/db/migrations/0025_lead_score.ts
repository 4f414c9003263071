import { type Kysely, sql } from 'kysely';

/**
 * Lead score, owners and organisation status (contract §17).
 *
 * - organisations.score/score_reasons: kept by the scoring job (src/scoring/), never
 *   computed per request; status and owner set by members; `excluded` says the status
 *   came from the workspace's excluded domains (taking the domain off the list brings the
 *   organisation back), not from a person.
 * - scoring_settings: a workspace's rules and key pages once an admin saved them (until
 *   then the documented defaults apply); `changed_at` later than `scored_at` asks the job
 *   for a full re-score.
 * - excluded_domains: organisations of these domains (or their subdomains) are stored
 *   hidden: those to come by the one statement that creates organisations
 *   (organisations/store.ts), those known by the PUT of the list.
 * - notification_rules: who made a rule, the owner filter (`me` is its maker) and the
 *   e-mail channel's `to_owner`, with the owners who unsubscribed from it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE organisations
      ADD COLUMN score smallint NOT NULL DEFAULT 0 CHECK (score BETWEEN 0 AND 100),
      ADD COLUMN score_reasons jsonb NOT NULL DEFAULT '[]',
      ADD COLUMN owner_id uuid,
      ADD COLUMN status text NOT NULL DEFAULT 'lead'
        CHECK (status IN ('lead', 'customer', 'competitor', 'hidden')),
      ADD COLUMN excluded boolean NOT NULL DEFAULT false,
      -- Its visits' sessions + page views of today and yesterday (the stats rollup) when it
      -- was last scored: the job re-scores those whose visits moved it since.
      ADD COLUMN scored_activity bigint NOT NULL DEFAULT 0,
      ADD FOREIGN KEY (workspace_id, owner_id)
        REFERENCES workspace_members (workspace_id, user_id) ON DELETE SET NULL (owner_id);
    CREATE INDEX organisations_score_idx ON organisations (workspace_id, score DESC, id);
    CREATE INDEX organisations_owner_idx ON organisations (workspace_id, owner_id)
      WHERE owner_id IS NOT NULL;

    CREATE TABLE scoring_settings (
      workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
      rules jsonb NOT NULL,
      key_pages jsonb NOT NULL,
      changed_at timestamptz NOT NULL DEFAULT now()
    );
    -- When each workspace was last scored in full (every workspace, saved settings or not).
    CREATE TABLE scoring_runs (
      workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
      scored_at timestamptz NOT NULL
    );
    -- Organisations whose score may have moved for a reason other than their visits (a
    -- tag, a custom value, the owner or status, the profile), for the job's next round.
    CREATE TABLE scoring_queue (
      workspace_id uuid NOT NULL,
      organisation_id uuid NOT NULL,
      FOREIGN KEY (workspace_id, organisation_id) REFERENCES organisations (workspace_id, id)
        ON DELETE CASCADE
    );
    CREATE INDEX scoring_queue_idx ON scoring_queue (workspace_id, organisation_id);

    CREATE TABLE excluded_domains (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      domain text NOT NULL,
      PRIMARY KEY (workspace_id, domain)
    );

    -- The domain and every parent of it: a.b.example.com → {a.b.example.com, b.example.com, example.com, com}.
    CREATE FUNCTION domain_and_parents(domain text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT AS $$
      SELECT array_agg(array_to_string(parts[i:], '.') ORDER BY i)
      FROM (SELECT string_to_array(lower(domain), '.') AS parts) p,
        generate_subscripts(p.parts, 1) AS i
    $$;

    ALTER TABLE notification_rules
      ADD COLUMN created_by uuid REFERENCES users (id) ON DELETE SET NULL,
      ADD COLUMN owner_id uuid,
      ADD COLUMN email_to_owner boolean NOT NULL DEFAULT false,
      -- Owners who unsubscribed from a to_owner rule (those of email_to leave that list).
      ADD COLUMN email_unsubscribed text[] NOT NULL DEFAULT '{}';
  `.execute(db);
}
