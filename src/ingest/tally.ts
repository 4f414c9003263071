import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DropReason } from './metrics.js';

const HOUR_MS = 3_600_000;
const KEEP = '2 days';
// Old hours are removed at most this often by each server, not at every write.
const PRUNE_EVERY_MS = 600_000;
// Rows per statement (5 parameters each, well under PostgreSQL's 65,535).
const CHUNK = 1_000;
const FOREIGN_KEY_VIOLATION = '23503';

interface Count {
  events: number;
  last: Date;
}

/**
 * Per workspace, the events stored and dropped (by reason), counted in memory and written
 * with one statement every few seconds: the collector's hot path never waits for it, and
 * several servers add up in the same rows.
 */
export class IngestTally {
  private counts = new Map<string, Count>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private prunedAt = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly everyMs: number,
  ) {}

  /** `reason` '' for events stored. */
  add(workspaceId: string, reason: DropReason | '', events: number, at = new Date()): void {
    if (events <= 0) return;
    const hour = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
    const key = `${workspaceId}|${hour}|${reason}`;
    const count = this.counts.get(key);
    if (count) {
      count.events += events;
      if (at > count.last) count.last = at;
    } else {
      this.counts.set(key, { events, last: at });
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.everyMs).unref();
  }

  /** Writes what has been counted; safe to call at any time (at shutdown, in tests). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write()).catch(() => {});
    return this.writing;
  }

  private async write(): Promise<void> {
    if (this.counts.size === 0) return;
    const counts = this.counts;
    this.counts = new Map();
    // In key order: two servers writing the same rows lock them in the same order.
    const rows = [...counts]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, count]) => {
        const [workspaceId, hour, reason] = key.split('|') as [string, string, string];
        return {
          workspace_id: workspaceId,
          hour: new Date(Number(hour)),
          reason,
          events: count.events,
          last_at: count.last,
        };
      });
    const upsert = (values: typeof rows) =>
      this.db
        .insertInto('workspace_ingest_hours')
        .values(values)
        .onConflict((conflict) =>
          conflict.columns(['workspace_id', 'hour', 'reason']).doUpdateSet({
            events: sql`workspace_ingest_hours.events + excluded.events`,
            last_at: sql`greatest(workspace_ingest_hours.last_at, excluded.last_at)`,
          }),
        )
        .execute();
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      try {
        await upsert(chunk);
      } catch (error) {
        // A workspace deleted meanwhile (foreign key): its counts no longer matter; the
        // others are written one by one. Any other failure loses these few seconds' counts.
        if ((error as { code?: unknown }).code !== FOREIGN_KEY_VIOLATION) throw error;
        for (const row of chunk) await upsert([row]).catch(() => {});
      }
    }
    if (Date.now() - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = Date.now();
    await sql`DELETE FROM workspace_ingest_hours WHERE hour < now() - ${KEEP}::interval`.execute(
      this.db,
    );
  }
}
