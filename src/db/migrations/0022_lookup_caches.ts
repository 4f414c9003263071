import { type Kysely, sql } from 'kysely';

/**
 * What the background lookups of contract §16 learnt from RDAP, kept 30 days so each
 * registered network and autonomous system is asked about once a month, whichever server
 * asked. Both hold published registrations (a network's range and its judged signal, an
 * AS number and its domain), never a visitor's address: PTR answers stay in memory.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE rdap_networks (
      start_address inet NOT NULL,
      end_address inet NOT NULL,
      handle text NOT NULL,
      judged jsonb NOT NULL,
      fetched_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (start_address, end_address),
      CHECK (family(start_address) = family(end_address) AND start_address <= end_address)
    )`.execute(db);
  // Containment, most specific first: the nearest start at or below the address.
  await sql`CREATE INDEX rdap_networks_start ON rdap_networks (start_address DESC)`.execute(db);
  await sql`CREATE INDEX rdap_networks_fetched ON rdap_networks (fetched_at)`.execute(db);
  await sql`
    CREATE TABLE rdap_autnums (
      asn bigint PRIMARY KEY,
      name text NOT NULL,
      domain text,
      judged jsonb NOT NULL,
      fetched_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX rdap_autnums_fetched ON rdap_autnums (fetched_at)`.execute(db);
}
