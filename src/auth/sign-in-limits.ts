import { createHmac } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/** Failed sign-ins allowed per window, per address and per client network (contract §12). */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
export const FAILURES_PER_ADDRESS = 5;
export const FAILURES_PER_NETWORK = 30;

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

  /** Seconds until another attempt is allowed, or 0 when one is allowed now. */
  async retryAfter(email: string, network: string): Promise<number> {
    const keys = this.keys(email, network);
    const { rows } = await sql<{ wait: number | null }>`
      SELECT ceil(extract(epoch FROM max(oldest) + make_interval(secs => ${SIGN_IN_WINDOW_SECONDS}) - now()))::int AS wait
      FROM (
        SELECT (array_agg(failed_at ORDER BY failed_at DESC))[${FAILURES_PER_ADDRESS}] AS oldest
        FROM sign_in_failures
        WHERE key = ${keys.address} AND failed_at > now() - make_interval(secs => ${SIGN_IN_WINDOW_SECONDS})
        UNION ALL
        SELECT (array_agg(failed_at ORDER BY failed_at DESC))[${FAILURES_PER_NETWORK}]
        FROM sign_in_failures
        WHERE key = ${keys.network} AND failed_at > now() - make_interval(secs => ${SIGN_IN_WINDOW_SECONDS})
      ) limits`.execute(this.db);
    return Math.max(0, rows[0]?.wait ?? 0);
  }

  async failed(email: string, network: string): Promise<void> {
    const keys = this.keys(email, network);
    await this.db
      .insertInto('sign_in_failures')
      .values([{ key: keys.address }, { key: keys.network }])
      .execute();
  }

  /** A successful sign-in forgets the address's failures (not the network's). */
  async succeeded(email: string, network: string): Promise<void> {
    await this.db
      .deleteFrom('sign_in_failures')
      .where('key', '=', this.keys(email, network).address)
      .execute();
  }
}
