import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- How each organisation was found and on what evidence (docs/identification.md):
    -- {"method": "email_domain" | "ip_range" | "network_owner", "evidence": {...}}.
    ALTER TABLE organisations ADD COLUMN identification jsonb NOT NULL
      DEFAULT '{"method": "unknown", "evidence": {}}';
    -- Organisations from before: what their key and the stored data still tell.
    UPDATE organisations SET identification = jsonb_build_object(
      'method', 'network_owner', 'evidence', jsonb_build_object('asn', substr(domain, 3)::bigint))
    WHERE domain ~ '^as[0-9]{1,10}$';
    UPDATE organisations o SET identification = jsonb_build_object(
      'method', 'email_domain', 'evidence', jsonb_build_object('domain', o.domain))
    WHERE EXISTS (SELECT 1 FROM visitors v
                  WHERE v.workspace_id = o.workspace_id AND v.organisation_id = o.id);
    UPDATE organisations o SET identification = '{"method": "ip_range", "evidence": {}}'
    WHERE identification->>'method' = 'unknown'
      AND (o.domain LIKE 'name:%' OR EXISTS (SELECT 1 FROM ip_ranges r WHERE r.domain = o.domain));

    -- Per-workspace filters: the customer's own networks are not tracked, and events are
    -- taken only from pages on these hosts (NULL: the site URL's host and its www. twin).
    ALTER TABLE workspaces ADD COLUMN excluded_ip_ranges cidr[] NOT NULL DEFAULT '{}';
    ALTER TABLE workspaces ADD COLUMN hostnames text[];
  `.execute(db);
}
