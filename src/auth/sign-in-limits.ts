import { createHmac } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/** Failed sign-ins allowed per window, per address and per client network (contract §12). */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
export const FAILURES_PER_ADDRESS = 5;
export const FAILURES_PER_NETWORK = 30;

/** One sign-in attempt, already counted as a failure. */
export interface SignInAttempt {
  /** Seconds until another attempt is allowed (429), or 0 when this one may go ahead. */
  wait: number;
  /** The password was right: the address's failures are forgotten, and this attempt too. */
  succeeded(): Promise<void>;
}

/**
 * Sign-in limits kept in PostgreSQL, so every server counts the same failures. Keys are
 * keyed hashes: neither the address typed nor the client's IP is stored.
 */
export class SignInLimits {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly key: Uint8Array,
  ) {}

  private hash(kind: string, value: string): Buffer {
    return createHmac('sha256', this.key).update(`sign-in:${kind}:${value}`).digest();
  }

  private keys(email: string, network: string) {
    return {
      address: this.hash('address', email.trim().toLowerCase()),
      network: this.hash('network', network),
    };
  }

  /**
   * Records the attempt as a failure before its password is checked, then counts: attempts
   * sent all at once then see each other, and at most the limit of them go ahead. (Counting
   * first and recording after let every attempt of a parallel burst through.) An attempt
   * over the limit is not kept, so the wait does not grow while someone keeps trying.
   */
  async attempt(email: string, network: string): Promise<SignInAttempt> {
    const keys = this.keys(email, network);
    const { rows: mine } = await sql<{ row: string; key: Buffer }>`
      INSERT INTO sign_in_failures (key) VALUES (${keys.address}), (${keys.network})
      RETURNING ctid::text AS row, key`.execute(this.db);
    const own = sql.join(
      mine.map(({ row, key }) => sql`(ctid = ${row}::tid AND key = ${key})`),
      sql` OR `,
    );
    // The (limit + 1)th most recent failure, this one included, ages out of the window when
    // the next attempt may go ahead.
    const { rows } = await sql<{ wait: number | null }>`
      SELECT ceil(extract(epoch FROM max(oldest) + make_interval(secs => ${SIGN_IN_WINDOW_SECONDS}) - now()))::int AS wait
      FROM (
        SELECT (array_agg(failed_at ORDER BY failed_at DESC))[${FAILURES_PER_ADDRESS + 1}] AS oldest
        FROM sign_in_failures
        WHERE key = ${keys.address} AND failed_at > now() - make_interval(secs => ${SIGN_IN_WINDOW_SECONDS})
        UNION ALL
        SELECT (array_agg(failed_at ORDER BY failed_at DESC))[${FAILURES_PER_NETWORK + 1}]
        FROM sign_in_failures
        WHERE key = ${keys.network} AND failed_at > now() - make_interval(secs => ${SIGN_IN_WINDOW_SECONDS})
      ) limits`.execute(this.db);
    const wait = Math.max(0, rows[0]?.wait ?? 0);
    if (wait > 0) await sql`DELETE FROM sign_in_failures WHERE ${own}`.execute(this.db);
    return {
      wait,
      succeeded: async () => {
        await sql`DELETE FROM sign_in_failures WHERE key = ${keys.address} OR ${own}`.execute(
          this.db,
        );
      },
    };
  }
}
