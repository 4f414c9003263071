import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { Counter, Gauge, type Registry } from 'prom-client';
import { connect, type Db } from './connect.js';
import type { Database } from './schema.js';

/**
 * Where reads go when DATABASE_READ_URL names a streaming replica (contract §19): lists,
 * exports and stats ask `reader(userId)` for their handle; every other statement, and every
 * write, uses the primary as before. A read goes to the replica only when
 * - the replica answers and is in recovery (a promoted or wrong server is passed over),
 * - it is no further behind than REPLICA_MAX_LAG_SECONDS, and
 * - it has replayed the user's last write (read_fences): what they just did is there.
 * Otherwise the primary answers, so replica lag can make a read slower, never stale.
 */

/** Why a read went where it went: a label of footfall_database_reads_total. */
type Reason = 'replica' | 'not_replayed' | 'lagging' | 'unreachable';

/** How often the replica's position and the primary's are sampled. */
const POLL_MS = 1000;
/** Samples of the primary's position kept: enough to measure ten minutes of lag. */
const SAMPLES = 600;

/** A pg_lsn (`16/B374D848`) as a number that orders as the WAL does. */
export function parseLsn(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

export interface ReadRoutingOptions {
  maxLagSeconds: number;
  /** Says a change of the replica's state (unreachable, back, lagging); never its URL. */
  warn(message: string): void;
}

export class ReadRouting {
  /** The handle whose connections come from the replica, or the primary if it cannot connect. */
  private readonly replicaDb: Kysely<Database> | null;
  private up = false;
  private problem: string | null = null;
  /** The replica's replay position at the last look, and the primary's positions over time. */
  private replayed = -1n;
  private readonly samples: { at: number; lsn: bigint }[] = [];
  private lagSeconds = Number.NaN;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private reads: Counter<'server' | 'reason'> | null = null;

  /** Every read from `primary`: DATABASE_READ_URL unset. */
  static primaryOnly(primary: Kysely<Database>): ReadRouting {
    return new ReadRouting(primary, null, null, { maxLagSeconds: 0, warn: () => {} });
  }

  /** Reads from `replica` as the rules above allow; call close() before closing either pool. */
  static withReplica(primary: Db, replica: Db, options: ReadRoutingOptions): ReadRouting {
    const routing = new ReadRouting(primary.db, primary.pool, replica, options);
    routing.timer = setInterval(() => void routing.poll(), POLL_MS);
    routing.timer.unref();
    void routing.poll();
    return routing;
  }

  private constructor(
    readonly primary: Kysely<Database>,
    primaryPool: pg.Pool | null,
    private readonly replica: Db | null,
    private readonly options: ReadRoutingOptions,
  ) {
    if (!replica || !primaryPool) {
      this.replicaDb = null;
      return;
    }
    // A replica that went away since the last look: this request's connection comes from the
    // primary instead of failing, and the next look says why.
    const fallback = {
      connect: async () => {
        if (this.up) {
          try {
            return await replica.pool.connect();
          } catch (error) {
            this.markDown(error);
          }
        }
        return primaryPool.connect();
      },
      end: async () => {},
    };
    this.replicaDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: fallback }) });
  }

  /** Whether a replica is configured at all. */
  get hasReplica(): boolean {
    return this.replicaDb !== null;
  }

  /** The handle a list, export or stats read of `userId` goes through. */
  async reader(userId: string): Promise<Kysely<Database>> {
    if (!this.replicaDb) return this.primary;
    if (!this.up) return this.route('primary', 'unreachable');
    if (!(this.lagSeconds <= this.options.maxLagSeconds)) return this.route('primary', 'lagging');
    const fence = await this.primary
      .selectFrom('read_fences')
      .select(sql<string>`lsn::text`.as('lsn'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (fence && this.replayed < parseLsn(fence.lsn)) {
      // Behind at the last look: it may have caught up since, so ask it now.
      if (!(await this.look()) || this.replayed < parseLsn(fence.lsn)) {
        return this.route('primary', this.up ? 'not_replayed' : 'unreachable');
      }
    }
    this.route('replica', 'replica');
    return this.replicaDb;
  }

  /**
   * After a write of `userId` committed: their reads wait for the replica to replay this far.
   * The insert position, read after the commit, is at or past the commit's end.
   */
  async fence(userId: string): Promise<void> {
    if (!this.replicaDb) return;
    await sql`
      INSERT INTO read_fences (user_id, lsn) VALUES (${userId}, pg_current_wal_insert_lsn())
      ON CONFLICT (user_id) DO UPDATE SET lsn = excluded.lsn, written_at = now()
    `.execute(this.primary);
  }

  /** footfall_replica_up, footfall_replica_lag_seconds and footfall_database_reads_total. */
  metrics(registry: Registry): void {
    if (!this.replicaDb) return;
    const routing = this;
    new Gauge({
      name: 'footfall_replica_up',
      help: 'Whether the read replica (DATABASE_READ_URL) answers as a standby (1) or not (0)',
      registers: [registry],
      collect() {
        this.set(routing.up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'footfall_replica_lag_seconds',
      help: 'How long ago the primary wrote the oldest WAL the replica has not replayed (0: none; NaN: unreachable)',
      registers: [registry],
      collect() {
        this.set(routing.up ? routing.lagSeconds : Number.NaN);
      },
    });
    this.reads = new Counter({
      name: 'footfall_database_reads_total',
      help: 'Lists, exports and stats read, by the server that answered and why',
      labelNames: ['server', 'reason'],
      registers: [registry],
    });
  }

  /** Stops looking at the replica; closes its pool (the primary's is its owner's). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling;
    await this.replica?.close();
  }

  private route(server: 'primary' | 'replica', reason: Reason): Kysely<Database> {
    this.reads?.inc({ server, reason });
    return this.primary;
  }

  /** One look at both servers, for the lag; one at a time. */
  private poll(): Promise<void> {
    this.polling ??= this.sample().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  private async sample(): Promise<void> {
    const at = Date.now();
    try {
      const { rows } = await sql<{ lsn: string }>`
        SELECT pg_current_wal_insert_lsn()::text AS lsn`.execute(this.primary);
      if (rows[0]) this.samples.push({ at, lsn: parseLsn(rows[0].lsn) });
      if (this.samples.length > SAMPLES) this.samples.shift();
    } catch {
      // The primary's own outage is reported where it is used; the lag waits for it.
    }
    if (!(await this.look())) return;
    // Lag: how long ago the primary had written something the replica has still not replayed.
    const behind = this.samples.find((sample) => sample.lsn > this.replayed);
    this.lagSeconds = behind ? (Date.now() - behind.at) / 1000 : 0;
    const lagging = this.lagSeconds > this.options.maxLagSeconds;
    this.report(lagging ? `is ${Math.round(this.lagSeconds)} s behind the primary` : null);
  }

  /** Asks the replica how far it has replayed; false when it cannot serve reads. */
  private async look(): Promise<boolean> {
    if (!this.replica) return false;
    try {
      const { rows } = await sql<{ recovering: boolean; replayed: string | null }>`
        SELECT pg_is_in_recovery() AS recovering, pg_last_wal_replay_lsn()::text AS replayed
      `.execute(this.replica.db);
      const row = rows[0];
      if (!row?.recovering || row.replayed === null) {
        this.up = false;
        this.report('is not a standby in recovery (promoted, or not a replica)');
        return false;
      }
      this.replayed = parseLsn(row.replayed);
      this.up = true;
      return true;
    } catch (error) {
      this.markDown(error);
      return false;
    }
  }

  private markDown(error: unknown): void {
    this.up = false;
    this.report(`is unreachable (${(error as Error).message})`);
  }

  /** Warns once per change of the replica's state, not once per look. */
  private report(problem: string | null): void {
    const kind = problem?.replace(/\d+/g, '') ?? null;
    if (kind === (this.problem?.replace(/\d+/g, '') ?? null)) return;
    this.problem = problem;
    this.options.warn(
      problem
        ? `the read replica ${problem}: reads go to the primary`
        : 'the read replica is back: lists, exports and stats read from it again',
    );
  }
}

/** The routing DATABASE_READ_URL asks for: a pool on the replica, or every read on `primary`. */
export function routeReads(
  config: {
    databaseReadUrl: string | null;
    replicaMaxLagSeconds: number;
    statementTimeoutMs: number;
  },
  primary: Db,
  warn: (message: string) => void,
): ReadRouting {
  if (!config.databaseReadUrl) return ReadRouting.primaryOnly(primary.db);
  const replica = connect(config.databaseReadUrl, 10, config.statementTimeoutMs);
  return ReadRouting.withReplica(primary, replica, {
    maxLagSeconds: config.replicaMaxLagSeconds,
    warn,
  });
}
