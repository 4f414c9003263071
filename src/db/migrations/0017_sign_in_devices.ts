import { type Kysely, sql } from 'kysely';

/**
 * Browsers a user has signed in with (the device cookie, after OWASP's "device cookies"):
 * their failed sign-ins count on a budget of their own, so guesses from strangers never
 * lock the user out of a browser they already use. Only the cookie's SHA-256 is kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sign_in_devices (
      id_hash bytea PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX sign_in_devices_user_idx ON sign_in_devices (user_id);
    CREATE INDEX sign_in_devices_expiry_idx ON sign_in_devices (expires_at);
  `.execute(db);
}
