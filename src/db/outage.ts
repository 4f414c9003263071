import { type Kysely, sql } from 'kysely';
import { isDatabaseUnreachable } from './failures.js';
import type { Database } from './schema.js';

interface OutageLog {
  warn(object: object, message: string): void;
  info(message: string): void;
}

/**
 * Keeps a database outage to two log lines: in an outage every request and every job round
 * fails, and a line for each would bury what else happens. The first failure is logged as a
 * warning; a probe then asks the database every PROBE_MS and logs when it answers again.
 */
export class DatabaseOutage {
  static readonly PROBE_MS = 1_000;
  private since: number | null = null;
  private probe: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: OutageLog,
  ) {}

  /** True when `error` says the database cannot be reached (and is then noted, once). */
  report(error: unknown): boolean {
    if (!isDatabaseUnreachable(error)) return false;
    if (this.since === null && !this.stopped) {
      this.since = Date.now();
      this.log.warn(
        { err: error },
        'database unreachable: answering 503 until it is back, background jobs wait',
      );
      this.schedule();
    }
    return true;
  }

  /** Ends the probe (the app is closing). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.probe);
  }

  private schedule(): void {
    this.probe = setTimeout(async () => {
      try {
        await sql`SELECT 1`.execute(this.db);
      } catch {
        if (!this.stopped) this.schedule();
        return;
      }
      const seconds = Math.round((Date.now() - (this.since ?? Date.now())) / 1000);
      this.since = null;
      if (!this.stopped) this.log.info(`database reachable again after ${seconds} s`);
    }, DatabaseOutage.PROBE_MS);
    this.probe.unref();
  }
}
