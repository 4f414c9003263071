import { type Kysely, sql } from 'kysely';

/**
 * When each custom-field value was last set: the `updated_at` of the value objects of
 * GET/PUT/PATCH .../organisations/{org}/custom-fields (contract §13). Values stored before
 * this migration take the time it ran. now() is stable, so PostgreSQL stores the default
 * once in the catalogue instead of rewriting the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE custom_field_values ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()
  `.execute(db);
}
