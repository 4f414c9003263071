import { type Kysely, sql } from 'kysely';

/**
 * The claim a notification delivery is under: a fresh id at every claim, so a worker whose
 * lease ran out (and whose delivery another worker now holds) writes nothing, since every
 * write of an attempt names its claim.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE notification_deliveries ADD COLUMN claim_id uuid`.execute(db);
}
