import { type Kysely, sql } from 'kysely';

/**
 * Profiles read from companies' own homepages (contract §16), instance-wide and keyed by
 * registrable domain like the directory. A row is `pending` from when an organisation with
 * the domain is seen until its first read; `ok` or `failed` after each read. A failed read
 * keeps the fields of the last good one (`read_at`), so a site that is down for a day does
 * not lose its logo. `lease_until` keeps a claimed domain with one server while it reads.
 * The directory gains `description`, which the site profile has too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE company_sites (
      domain text PRIMARY KEY,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ok', 'failed')),
      name text NOT NULL DEFAULT '',
      logo text NOT NULL DEFAULT '',
      description text NOT NULL DEFAULT '',
      phone text NOT NULL DEFAULT '',
      email text NOT NULL DEFAULT '',
      founded text NOT NULL DEFAULT '',
      size text NOT NULL DEFAULT '',
      address jsonb NOT NULL DEFAULT '{}',
      profiles jsonb NOT NULL DEFAULT '[]',
      url text NOT NULL DEFAULT '',
      error text NOT NULL DEFAULT '',
      fetched_at timestamptz,
      read_at timestamptz,
      next_fetch_at timestamptz NOT NULL DEFAULT now(),
      lease_until timestamptz
    );
    CREATE INDEX company_sites_due_idx ON company_sites (next_fetch_at);

    -- Which organisations a domain has (is it still wanted?) and which are new (to read).
    CREATE INDEX organisations_domain_idx ON organisations (domain);
    CREATE INDEX organisations_created_at_idx ON organisations (created_at);

    ALTER TABLE companies ADD COLUMN description text NOT NULL DEFAULT '';
  `.execute(db);
}
