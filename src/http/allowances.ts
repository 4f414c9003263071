import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { HttpError } from './errors.js';

/**
 * A rolling allowance: at most `limit` in any `windowSeconds`, for one subject (a user or a
 * workspace). Kept in PostgreSQL (`allowance_uses`), so every server counts the same uses.
 */
export interface Allowance {
  /** What is counted and for whom, e.g. `mail:user`. */
  scope: string;
  subjectId: string;
  /** What this use takes, e.g. the e-mails it sends. */
  amount: number;
  limit: number;
  windowSeconds: number;
  /** The rule in a person's words, e.g. "You can make Footfall send at most 60 e-mails a minute". */
  rule: string;
  /** What is counted, in the plural ("e-mails"), for a use larger than the whole allowance. */
  unit: string;
}

interface Refusal {
  allowance: Allowance;
  wait: number;
}

/**
 * Takes each allowance's amount, all or none, or throws 429 with Retry-After and the rule
 * that refused. Uses of one subject are serialised by an advisory lock (taken in one order,
 * so two callers never wait on each other in a circle), and so is a burst from many servers.
 */
export async function spend(db: Kysely<Database>, allowances: Allowance[]): Promise<void> {
  const refusal = await db.transaction().execute(async (trx) => {
    const subjects = [...new Set(allowances.map((a) => `${a.scope}:${a.subjectId}`))].sort();
    for (const subject of subjects) {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${subject}, 0))`.execute(trx);
    }
    // The clock after the locks: time spent waiting for them must not count as used.
    const { rows } = await sql<{ now: string }>`SELECT clock_timestamp()::text AS now`.execute(trx);
    const now = sql`${rows[0]?.now}::timestamptz`;
    const refusals: Refusal[] = [];
    for (const allowance of allowances) {
      const wait = await waitFor(trx, allowance, now);
      if (wait > 0) refusals.push({ allowance, wait });
    }
    if (refusals.length > 0) return refusals.sort((a, b) => b.wait - a.wait)[0];
    for (const { scope, subjectId, amount, windowSeconds } of allowances) {
      await sql`
        DELETE FROM allowance_uses WHERE scope = ${scope} AND subject_id = ${subjectId}
          AND used_at <= ${now} - make_interval(secs => ${windowSeconds})`.execute(trx);
      await sql`
        INSERT INTO allowance_uses (scope, subject_id, amount, used_at)
        VALUES (${scope}, ${subjectId}, ${amount}, ${now})`.execute(trx);
    }
    return undefined;
  });
  if (refusal) throw tooMany(refusal);
}

/**
 * Seconds until the allowance has room for its amount (0: it has now). The oldest uses
 * leave the window first, so it is when enough of them have left it.
 */
async function waitFor(
  trx: Kysely<Database>,
  allowance: Allowance,
  now: RawBuilder<unknown>,
): Promise<number> {
  const { scope, subjectId, amount, limit, windowSeconds } = allowance;
  if (amount > limit) return windowSeconds;
  const { rows } = await sql<{ amount: number; leaves_in: number }>`
    SELECT amount,
      extract(epoch FROM used_at + make_interval(secs => ${windowSeconds}) - ${now})::float8 AS leaves_in
    FROM allowance_uses
    WHERE scope = ${scope} AND subject_id = ${subjectId}
      AND used_at > ${now} - make_interval(secs => ${windowSeconds})
    ORDER BY used_at`.execute(trx);
  let used = rows.reduce((sum, row) => sum + row.amount, 0);
  if (used + amount <= limit) return 0;
  for (const row of rows) {
    used -= row.amount;
    if (used + amount <= limit) return Math.max(1, Math.ceil(row.leaves_in));
  }
  return windowSeconds;
}

function tooMany({ allowance, wait }: Refusal): HttpError {
  const message =
    allowance.amount > allowance.limit
      ? `${allowance.rule}, and this would take ${allowance.amount} ${allowance.unit} at once.`
      : `${allowance.rule}. Try again ${inWords(wait)}.`;
  return new HttpError(429, message, undefined, { 'retry-after': String(wait) });
}

/** "in 42 seconds", "in 3 minutes", or for longer waits the time too. */
function inWords(seconds: number): string {
  if (seconds <= 90) return `in ${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes <= 90) return `in ${minutes} minutes`;
  const at = new Date(Date.now() + seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
  const rest = minutes % 60 > 0 ? ` ${minutes % 60} min` : '';
  return `in ${Math.floor(minutes / 60)} h${rest}, at ${at} UTC`;
}
