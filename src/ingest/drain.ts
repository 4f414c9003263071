import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { isTransient, mayBeInTheData, sqlState, writeFailure } from '../db/failures.js';
import type { Database } from '../db/schema.js';
import { inTransaction, type Transaction } from '../db/transaction.js';
import { INGEST_SHARDS } from './inbox.js';
import type { IngestMetrics } from './metrics.js';
import type { IngestRecord } from './record.js';
import { goneScripts } from './scripts.js';
import type { WriteRequest, WriteWithin } from './writer.js';

/** Rows of the batch were deleted by another transaction while it ran. */
class InboxChanged extends Error {
  constructor() {
    super('inbox rows of the batch were removed meanwhile');
  }
}

/** The advisory lock namespace of the inbox's lanes (as in claim_ingest_lanes). */
const LANE_LOCKS = 1229866837;

interface InboxRow {
  id: number;
  shard: number;
  workspace_id: string;
  record: unknown;
}

export interface DrainDeps {
  db: Kysely<Database>;
  write: WriteWithin;
  metrics: IngestMetrics;
  /** Requests per batch: one transaction of the writer's phases. */
  batchRequests: number;
  /** How long requests gather after a part batch before the next (0: take them at once). */
  gatherMs?: number;
  /** Ids and SQLSTATEs only: a failing value may be personal data. */
  log: (message: string) => void;
}

/** Why a batch came back: it was done, or the database is out of reach (wait, then on). */
type Outcome = { handled: number } | { unavailable: unknown };

/**
 * A worker of contract §19: claims lanes of the inbox, processes their oldest requests through
 * the writer's phases and deletes them in the same transaction, so each acknowledged request
 * is processed exactly once, whichever process is killed when (a killed worker's transaction
 * rolls back, and its lane locks go with its connection). A batch takes as many free lanes
 * as it needs to hold `batchRequests` requests, so batches stay large (cheaper per request)
 * however thinly the backlog is spread over the lanes.
 *
 * A batch that fails for its data is split to find the request at fault, which is put in the
 * quarantine with its reason (footfall_ingest_quarantined_total); a request whose workspace
 * was deleted since it was acknowledged is discarded and counted. An unlinked script's
 * requests are stored: they were acknowledged before the unlink.
 */
export class InboxWorker {
  private next = 0;

  constructor(private readonly deps: DrainDeps) {}

  /**
   * One batch from the first free lanes with requests (from a lane that turns round, so
   * every lane gets its turn): the number of requests handled, 0 when there was nothing.
   */
  async drainOnce(): Promise<number> {
    const start = this.next;
    this.next = (this.next + 1) % INGEST_SHARDS;
    const outcome = await this.batch({ start });
    if ('unavailable' in outcome) throw outcome.unavailable;
    return outcome.handled;
  }

  /**
   * Runs `workers` loops until stopped: each drains full batches while there are some; after
   * a part batch it lets requests gather for `gatherMs` (a batch costs less per request the
   * larger it is, and a steady load would otherwise be taken a few requests at a time); with
   * nothing to do it waits for `wake()` or `idleMs`. A database out of reach is reported and
   * waited out.
   */
  start(workers: number, idleMs: number, onError: (error: unknown) => void) {
    const gatherMs = this.deps.gatherMs ?? 0;
    let stopped = false;
    // Pauses that wake() ends, and those only stop() ends (requests gathering).
    const waiting = new Set<() => void>();
    const gathering = new Set<() => void>();
    const pause = (ms: number, wakeable = true) =>
      new Promise<void>((resolve) => {
        const within = wakeable ? waiting : gathering;
        const done = () => {
          clearTimeout(timer);
          within.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        within.add(done);
      });
    const loop = async () => {
      while (!stopped) {
        try {
          const handled = await this.drainOnce();
          if (handled >= this.deps.batchRequests || (handled > 0 && gatherMs === 0)) continue;
          await (handled > 0 ? pause(gatherMs, false) : pause(idleMs));
        } catch (error) {
          onError(error);
          await pause(Math.max(idleMs, 1000));
        }
      }
    };
    const loops = Array.from({ length: workers }, loop);
    this.wakeAll = () => {
      for (const done of [...waiting]) done();
    };
    return {
      stop: async () => {
        stopped = true;
        this.wakeAll();
        for (const done of [...gathering]) done();
        await Promise.all(loops);
      },
    };
  }

  /** Ends the loops' waits: something was appended in this process. */
  wake(): void {
    this.wakeAll();
  }

  private wakeAll: () => void = () => {};

  /**
   * One transaction: the lanes (claimed, or those given that are free), their rows (the
   * oldest, or the given ids), the writer's phases, the rows deleted, commit.
   */
  private async batch(
    which: { start: number } | { lanes: number[]; ids: number[] },
  ): Promise<Outcome> {
    const { db, metrics } = this.deps;
    let lanes: number[] = [];
    let rows: InboxRow[] = [];
    for (let attempt = 0; ; attempt++) {
      try {
        const written = await inTransaction(db, async (tx) => {
          const connection = await tx.db();
          lanes = await this.lock(connection, which);
          if (lanes.length === 0) return null;
          rows = await this.read(connection, lanes, 'ids' in which ? which.ids : null);
          if (rows.length === 0) return null;
          return this.process(tx, lanes, rows);
        });
        if (!written) return { handled: 0 };
        written.committed();
        metrics.processed.inc(rows.length);
        return { handled: rows.length };
      } catch (error) {
        const gone = goneScripts(error);
        if (gone) {
          await this.discard(rows, gone);
          continue;
        }
        const failure = error instanceof InboxChanged ? 'serialization' : writeFailure(error);
        if (isTransient(failure) && attempt < 5) {
          metrics.retries.inc({ reason: failure });
          await sleep(Math.random() * 10 * 2 ** attempt);
          continue;
        }
        if (!mayBeInTheData(failure) || rows.length === 0) return { unavailable: error };
        if (rows.length === 1) {
          await this.quarantine(rows[0] as InboxRow, failure, error);
          return { handled: 1 };
        }
        // Each half apart (the lanes are taken again; another worker may hold one by then,
        // and then has its rows as its oldest).
        metrics.splits.inc({ reason: failure });
        const half = Math.ceil(rows.length / 2);
        let handled = 0;
        for (const part of [rows.slice(0, half), rows.slice(half)]) {
          const outcome = await this.batch({
            lanes: [...new Set(part.map((row) => row.shard))],
            ids: part.map((row) => row.id),
          });
          if ('unavailable' in outcome) return outcome;
          handled += outcome.handled;
        }
        return { handled };
      }
    }
  }

  private async lock(
    connection: Kysely<Database>,
    which: { start: number } | { lanes: number[] },
  ): Promise<number[]> {
    if ('lanes' in which) {
      const { rows } = await sql<{ lane: number }>`
        SELECT lane FROM unnest(${which.lanes}::int[]) AS l(lane)
        WHERE pg_try_advisory_xact_lock(${LANE_LOCKS}, lane)`.execute(connection);
      return rows.map((row) => row.lane);
    }
    const { rows } = await sql<{ lanes: number[] }>`
      SELECT claim_ingest_lanes(${which.start}, ${INGEST_SHARDS}, ${this.deps.batchRequests}) AS lanes`.execute(
      connection,
    );
    return rows[0]?.lanes ?? [];
  }

  private async read(
    connection: Kysely<Database>,
    lanes: number[],
    ids: number[] | null,
  ): Promise<InboxRow[]> {
    const query = connection
      .selectFrom('ingest_inbox')
      .select(['id', 'shard', 'workspace_id', 'record'])
      .where('shard', 'in', lanes)
      .orderBy('id')
      .limit(this.deps.batchRequests);
    return ids ? query.where('id', 'in', ids).execute() : query.execute();
  }

  /** The writer's phases on the rows that read as records, then the rows deleted. */
  private async process(tx: Transaction<Database>, lanes: number[], rows: InboxRow[]) {
    const requests: WriteRequest[] = [];
    const readable: InboxRow[] = [];
    const unreadable: InboxRow[] = [];
    for (const row of rows) {
      const record = asRecord(row.record);
      if (record) {
        requests.push({ context: record });
        readable.push(row);
      } else unreadable.push(row);
    }
    const connection = await tx.db();
    for (const row of unreadable) {
      await this.moveToQuarantine(connection, row, 'unreadable', 'not an ingest record');
    }
    const written = await this.deps.write(tx, requests);
    if (readable.length === 0) return written;
    const [deleted] = await connection
      .deleteFrom('ingest_inbox')
      .where('shard', 'in', lanes)
      .where(
        'id',
        'in',
        readable.map((row) => row.id),
      )
      .execute();
    // Forgotten meanwhile (privacy/forget.ts): the batch rolls back and is read again.
    if (Number(deleted?.numDeletedRows ?? 0) !== readable.length) throw new InboxChanged();
    return written;
  }

  /**
   * Requests of deleted workspaces' scripts: removed and counted, the rest goes on. Counted
   * by what this DELETE removed: another worker may have met the same rows and removed them.
   */
  private async discard(rows: InboxRow[], gone: Map<string, string>): Promise<void> {
    const dropped = rows.filter((row) => {
      const record = asRecord(row.record);
      return record !== null && gone.has(record.script.id);
    });
    if (dropped.length === 0) return;
    const removed = await this.deps.db
      .deleteFrom('ingest_inbox')
      .where(
        'id',
        'in',
        dropped.map((row) => row.id),
      )
      .returning('id')
      .execute();
    const ids = new Set(removed.map((row) => row.id));
    for (const [script, reason] of gone) {
      const requests = dropped.filter(
        (row) => ids.has(row.id) && asRecord(row.record)?.script.id === script,
      ).length;
      if (requests > 0) {
        this.deps.metrics.discarded.inc({ reason: `script_${reason}` }, requests);
        this.deps.log(
          `ingest: ${requests} acknowledged requests of tracking script ${script} discarded: its workspace was deleted before they were processed`,
        );
      }
    }
  }

  private async quarantine(row: InboxRow, failure: string, error: unknown) {
    const detail = `SQLSTATE ${sqlState(error) ?? 'none'}`;
    await inTransaction(this.deps.db, async (tx) => {
      const connection = await tx.db();
      await this.moveToQuarantine(connection, row, failure, detail);
    });
  }

  private async moveToQuarantine(
    connection: Kysely<Database>,
    row: InboxRow,
    reason: string,
    detail: string,
  ): Promise<void> {
    // Counted and logged only when this moved the row: two workers may meet the same one.
    const { rows: moved } = await sql`
      WITH moved AS (
        DELETE FROM ingest_inbox WHERE shard = ${row.shard} AND id = ${row.id}
        RETURNING workspace_id, id, shard, events, received_at, record
      )
      INSERT INTO ingest_quarantine (workspace_id, id, shard, events, received_at, record, reason, detail)
      SELECT workspace_id, id, shard, events, received_at, record, ${reason}, ${detail} FROM moved
      ON CONFLICT (workspace_id, id) DO UPDATE
        SET reason = excluded.reason, detail = excluded.detail, record = excluded.record,
          quarantined_at = now()
      RETURNING id`.execute(connection);
    if (moved.length === 0) return;
    this.deps.metrics.quarantined.inc({ reason });
    this.deps.log(
      `ingest: request ${row.id} of workspace ${row.workspace_id} quarantined (${reason}, ${detail}); footfall ingest replay sends it again`,
    );
  }
}

/** A stored record, when it has the shape the writer needs (a replayed or old row may not). */
function asRecord(value: unknown): IngestRecord | null {
  const record = value as Partial<IngestRecord> | null;
  if (
    typeof record !== 'object' ||
    record === null ||
    typeof record.script?.id !== 'string' ||
    typeof record.script.workspaceId !== 'string' ||
    !Array.isArray(record.script.siteDomains) ||
    typeof record.visitorId !== 'string' ||
    typeof record.agent !== 'object' ||
    typeof record.location !== 'object' ||
    !Array.isArray(record.events)
  ) {
    return null;
  }
  return record as IngestRecord;
}

/**
 * `footfall ingest replay`: quarantined requests go back to the inbox (with their reason
 * or all), to be processed again; the number moved.
 */
export async function replayQuarantine(
  db: Kysely<Database>,
  reason: string | null,
): Promise<number> {
  // Put back first, then removed from the quarantine only where it was put back.
  const { rows } = await sql<{ moved: number }>`
    WITH put AS (
      INSERT INTO ingest_inbox (workspace_id, id, shard, events, record)
      SELECT workspace_id, id, shard, events, record FROM ingest_quarantine
      WHERE ${reason === null ? sql`true` : sql`reason = ${reason}`}
      ON CONFLICT DO NOTHING
      RETURNING workspace_id, id
    ), removed AS (
      DELETE FROM ingest_quarantine q USING put
      WHERE q.workspace_id = put.workspace_id AND q.id = put.id
      RETURNING 1
    )
    SELECT count(*)::int AS moved FROM removed`.execute(db);
  return rows[0]?.moved ?? 0;
}
