import { type Kysely, sql } from 'kysely';
import { Gauge, type Registry } from 'prom-client';
import { isTransient, writeFailure } from '../db/failures.js';
import { GroupCommit } from '../db/group-commit.js';
import { PREPARED } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { IngestMetrics } from './metrics.js';
import type { IngestRecord } from './record.js';
import type { IngestSink } from './sink.js';
import { type WriteRequest, withoutGoneScripts } from './writer.js';

/**
 * Lanes of the inbox: a visitor's requests all go to one lane, and one worker at a time
 * holds a lane, so they are processed in order. More lanes than workers will ever run.
 */
export const INGEST_SHARDS = 32;

/** The lane of a visitor (FNV-1a of its id): the same in every process. */
export function shardOf(visitorId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < visitorId.length; i++) {
    hash ^= visitorId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % INGEST_SHARDS;
}

/**
 * The sink of contract §19: a group of requests is appended to the inbox in one statement,
 * which also holds their tracking scripts (a shared advisory lock each) and fails for one
 * unlinked or deleted since the collector's cached lookup (that request is refused, 410 or
 * 404, and the rest appended again). `add` resolves once the statement committed: the
 * acknowledgement waits for that and nothing else. Workers (drain.ts) do the rest.
 */
export function inboxSink(
  db: Kysely<Database>,
  metrics: IngestMetrics,
  appended: () => void = () => {},
): IngestSink {
  const append = async (requests: WriteRequest[]) => {
    const scripts = [...new Set(requests.map((r) => r.context.script.id))].sort();
    const rows = requests.filter((r) => r.context.events.length > 0);
    if (rows.length === 0) {
      await sql`${PREPARED}SELECT lock_tracking_scripts(${scripts}::text[])`.execute(db);
      return;
    }
    // One statement, so one round trip: the scripts' check, then the rows (a request whose
    // events were all dropped is only checked). The check is materialised (it is volatile),
    // so it runs once, before any row is written. The rows go as one JSON document: one
    // JSON.stringify here, where arrays of JSON texts cost an escaping pass per row.
    const document = JSON.stringify(
      rows.map((r) => ({
        w: r.context.script.workspaceId,
        s: shardOf(r.context.visitorId),
        n: r.context.events.length,
        r: r.context,
      })),
    );
    await sql`${PREPARED}
      WITH checked AS (SELECT lock_tracking_scripts(${scripts}::text[]))
      INSERT INTO ingest_inbox (workspace_id, shard, events, record)
      SELECT r.w, r.s, r.n, r.r
      FROM checked, json_to_recordset(${document}::json) AS r(w uuid, s smallint, n integer, r json)`.execute(
      db,
    );
  };
  const writer = new GroupCommit<WriteRequest>((requests) => withoutGoneScripts(requests, append), {
    maxItems: 1000, // requests, each with up to 100 events
    // Two appends at a time: the requests that arrive meanwhile make the next group, and a
    // request costs less the larger its group (at 50 connections, 25 a group with one at a
    // time, 16 with two, 13 with three). With one, the collector sat idle while PostgreSQL
    // ran the append (2.7 ms); two, with the inbox's unused index dropped, acknowledged
    // 4–16 % more (docs/performance.md); four had cost more CPU a request before.
    concurrency: 2,
    retry: { when: (error) => isTransient(writeFailure(error)), attempts: 5, delayMs: 10 },
    onWrite: (count, ms) => {
      metrics.groupSize.observe(count);
      metrics.groupSeconds.observe(ms / 1000);
    },
    onRetry: (error) => metrics.retries.inc({ reason: writeFailure(error) }),
  });
  return {
    async add(records: IngestRecord[]) {
      const requests: WriteRequest[] = records.map((context) => ({ context }));
      await writer.add(requests);
      appended();
      return requests.map(({ context, refused }) =>
        refused ? { refused } : { stored: context.events.length },
      );
    },
    flush: () => writer.flush(),
  };
}

/** What waits in the inbox: events, requests, and the age of the oldest (seconds). */
export interface Backlog {
  events: number;
  requests: number;
  lagSeconds: number;
}

export async function readBacklog(db: Kysely<Database>): Promise<Backlog> {
  const { rows } = await sql<{ events: number; requests: number; lag: number | null }>`
    SELECT coalesce(sum(events), 0)::int8 AS events, count(*)::int8 AS requests,
      extract(epoch FROM now() - min(received_at))::float8 AS lag
    FROM ingest_inbox`.execute(db);
  const row = rows[0];
  return {
    events: Number(row?.events ?? 0),
    requests: Number(row?.requests ?? 0),
    lagSeconds: Math.max(0, row?.lag ?? 0),
  };
}

/**
 * The backlog as the collector sees it, read at most once a second (a sum over the inbox):
 * above `max` events, or with the database out of reach, collect answers 503 (contract §19).
 */
export class BacklogGauge {
  private last: Backlog = { events: 0, requests: 0, lagSeconds: 0 };
  private readAt = 0;
  private reading: Promise<void> | null = null;
  private scraping: Promise<Backlog> | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly max: number,
  ) {}

  /** Whether the backlog is over the limit, from a reading at most a second old. */
  full(): boolean {
    if (Date.now() - this.readAt > 1000) void this.refresh();
    return this.last.events > this.max;
  }

  /**
   * A reading of now, taken after every append acknowledged so far (for /metrics). Calls in
   * the same turn of the event loop share it: a scrape asks for both gauges at once, and
   * each reading sums the whole inbox.
   */
  current(): Promise<Backlog> {
    if (!this.scraping) {
      this.scraping = readBacklog(this.db).then((backlog) => {
        this.last = backlog;
        this.readAt = Date.now();
        return backlog;
      });
      setImmediate(() => {
        this.scraping = null;
      });
    }
    return this.scraping;
  }

  /** A reading; one already under way is fresh enough and is shared. */
  private refresh(): Promise<void> {
    if (this.reading) return this.reading;
    this.readAt = Date.now();
    const reading = readBacklog(this.db)
      .then((backlog) => {
        this.last = backlog;
      })
      .catch(() => {
        // The database is out of reach: the append fails and says so on its own.
      })
      .finally(() => {
        if (this.reading === reading) this.reading = null;
      });
    this.reading = reading;
    return reading;
  }
}

/** footfall_ingest_backlog_events and footfall_ingest_lag_seconds, read when scraped. */
export function backlogMetrics(registry: Registry, backlog: BacklogGauge): void {
  new Gauge({
    name: 'footfall_ingest_backlog_events',
    help: 'Acknowledged events waiting in the inbox to be processed',
    registers: [registry],
    async collect() {
      this.set((await backlog.current()).events);
    },
  });
  new Gauge({
    name: 'footfall_ingest_lag_seconds',
    help: 'Age of the oldest acknowledged request not yet processed (0: none waiting)',
    registers: [registry],
    async collect() {
      this.set((await backlog.current()).lagSeconds);
    },
  });
}

/** Dead rows from which the inbox is vacuumed, and live rows above which it is left alone. */
export const INBOX_VACUUM = { dead: 1_000, live: 200_000 };

/**
 * Vacuums the inbox when it holds many dead rows and few live ones; true when it did. Every
 * processed request leaves a dead row, and until a vacuum removes it, every claim of a lane
 * and every read of a batch walks past it: autovacuum comes round once a minute, when 60,000
 * rows may have died (a claim then took 5.4 ms of PostgreSQL's time, 0.5 ms with the inbox
 * vacuumed every 2 s). A large backlog is left to autovacuum: a vacuum there would read
 * every page of it. Several workers may call it: SKIP_LOCKED leaves it to the one vacuuming.
 */
export async function vacuumInbox(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ dead: string; live: string }>`
    SELECT n_dead_tup AS dead, n_live_tup AS live FROM pg_stat_user_tables
    WHERE relid = 'ingest_inbox'::regclass`.execute(db);
  const [stats] = rows;
  if (!stats || Number(stats.dead) < INBOX_VACUUM.dead || Number(stats.live) > INBOX_VACUUM.live) {
    return false;
  }
  await sql`VACUUM (SKIP_LOCKED) ingest_inbox`.execute(db);
  return true;
}

/** Event ids seen more than `days` ago are forgotten (a tracker sends again within hours). */
export async function pruneEventIds(db: Kysely<Database>, days: number): Promise<void> {
  await sql`DELETE FROM ingest_event_ids WHERE seen_on < current_date - ${days}::int`.execute(db);
}
