import { createHmac } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Failed sign-ins allowed per window (contract §12: limited per address and client network,
 * slowed, and never a lock-out from another network). docs/api.md gives the same numbers.
 */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
/** One address from one client network, or from one browser it signed in with before. */
export const FAILURES_PER_ADDRESS_AND_NETWORK = 5;
/** One client network, whatever the addresses tried. */
export const FAILURES_PER_NETWORK = 30;
/** One address, from every browser it has not signed in with, all networks together. */
export const FAILURES_PER_ADDRESS_FROM_UNKNOWN_BROWSERS = 20;

/** Reset e-mails asked for, per hour: enough for a lost mail, too few to flood an inbox. */
export const FORGOT_WINDOW_SECONDS = 60 * 60;
export const FORGOT_PER_ADDRESS = 3;
export const FORGOT_PER_NETWORK = 10;

/** The longest window: rows older than it count for nothing. */
export const LONGEST_WINDOW_SECONDS = FORGOT_WINDOW_SECONDS;

/** One sign-in attempt, already counted as a failure. */
export interface SignInAttempt {
  /** Seconds until another attempt is allowed (429), or 0 when this one may go ahead. */
  wait: number;
  /** How long to hold this attempt's answer back, right password or wrong (the slow-down). */
  delayMs: number;
  /** The password was right: the failures of its address from there are forgotten. */
  succeeded(): Promise<void>;
}

interface Budget {
  key: Buffer;
  limit: number;
}

/**
 * The slow-down: after two failures of an address from one network (or browser), each
 * further attempt from there is answered after 0.5 s, then 1 s, then 2 s.
 */
export function slowDown(failuresBefore: number): number {
  return failuresBefore < 2 ? 0 : Math.min(500 * 2 ** (failuresBefore - 2), 4000);
}

/**
 * Sign-in limits kept in PostgreSQL, so every server counts the same failures. Keys are
 * keyed hashes: neither the address typed nor the client's IP is stored.
 *
 * An attempt from a browser that signed in as that address before (the device cookie) is
 * counted on that browser alone. Any other attempt is counted on its (address, network)
 * pair, its network, and the address's budget for unknown browsers: guesses from one
 * network stop at 5 and leave 15 of that budget to the person elsewhere, and no number of
 * networks touches a browser the person already uses.
 */
export class SignInLimits {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly key: Uint8Array,
  ) {}

  private hash(kind: string, value: string): Buffer {
    return createHmac('sha256', this.key).update(`sign-in:${kind}:${value}`).digest();
  }

  /**
   * Records the attempt as a failure before its password is checked, then counts: attempts
   * sent all at once then see each other, and at most the limit of them go ahead.
   * `device`: the hash of a device cookie of the address's user (see devices.ts).
   */
  async attempt(email: string, network: string, device?: Buffer): Promise<SignInAttempt> {
    const address = email.trim().toLowerCase();
    const own: Budget = {
      key: device
        ? this.hash('device', device.toString('hex'))
        : this.hash('address-network', `${address}\n${network}`),
      limit: FAILURES_PER_ADDRESS_AND_NETWORK,
    };
    const budgets = device
      ? [own]
      : [
          own,
          { key: this.hash('network', network), limit: FAILURES_PER_NETWORK },
          {
            key: this.hash('address', address),
            limit: FAILURES_PER_ADDRESS_FROM_UNKNOWN_BROWSERS,
          },
        ];
    const counted = await countAttempt(this.db, budgets, SIGN_IN_WINDOW_SECONDS);
    return {
      wait: counted.wait,
      // The failures before this one, of the address from here.
      delayMs: slowDown((counted.counts[0] ?? 1) - 1),
      succeeded: async () => {
        await sql`DELETE FROM sign_in_failures WHERE key = ${own.key} OR ${counted.mine}`.execute(
          this.db,
        );
      },
    };
  }

  /**
   * A request for a reset e-mail, counted per address and per network whether or not the
   * address has an account, so the limit says nothing about which addresses do. Answers
   * the seconds to wait, or 0.
   */
  async forgot(email: string, network: string): Promise<number> {
    const address = email.trim().toLowerCase();
    const counted = await countAttempt(
      this.db,
      [
        { key: this.hash('forgot-address', address), limit: FORGOT_PER_ADDRESS },
        { key: this.hash('forgot-network', network), limit: FORGOT_PER_NETWORK },
      ],
      FORGOT_WINDOW_SECONDS,
    );
    return counted.wait;
  }
}

/**
 * Records one attempt under every budget's key, then counts each key's attempts in the
 * window. (Counting first and recording after let every attempt of a parallel burst
 * through.) An attempt over a limit is not kept, so the wait does not grow while someone
 * keeps trying. Answers the wait, each key's count (this attempt included), and a
 * condition naming this attempt's own rows.
 */
async function countAttempt(db: Kysely<Database>, budgets: Budget[], windowSeconds: number) {
  const values = sql.join(budgets.map(({ key }) => sql`(${key})`));
  const { rows: inserted } = await sql<{ row: string; key: Buffer }>`
    INSERT INTO sign_in_failures (key) VALUES ${values}
    RETURNING ctid::text AS row, key`.execute(db);
  const mine = sql.join(
    inserted.map(({ row, key }) => sql`(ctid = ${row}::tid AND key = ${key})`),
    sql` OR `,
  );
  // The (limit + 1)th most recent attempt, this one included, ages out of the window when
  // the next attempt may go ahead.
  const counts = sql.join(
    budgets.map(
      ({ key, limit }, index) => sql`
        SELECT ${index}::int AS index, count(*)::int AS attempts,
               (array_agg(failed_at ORDER BY failed_at DESC))[${limit + 1}] AS oldest
        FROM sign_in_failures
        WHERE key = ${key} AND failed_at > now() - make_interval(secs => ${windowSeconds})`,
    ),
    sql` UNION ALL `,
  );
  const { rows } = await sql<{ index: number; attempts: number; wait: number | null }>`
    SELECT index, attempts,
           ceil(extract(epoch FROM oldest + make_interval(secs => ${windowSeconds}) - now()))::int AS wait
    FROM (${counts}) budgets
    ORDER BY index`.execute(db);
  const wait = Math.max(0, ...rows.map((row) => row.wait ?? 0));
  if (wait > 0) await sql`DELETE FROM sign_in_failures WHERE ${mine}`.execute(db);
  return { wait, counts: rows.map((row) => row.attempts), mine };
}
