import { type Kysely, type RawBuilder, sql } from 'kysely';
import { againIfTransient } from '../db/failures.js';
import {
  detachMonth,
  hasMonthPartitions,
  type Month,
  monthBounds,
  monthsBefore,
  PARTITIONED,
  withinSession,
} from '../db/partitions.js';
import type { Database } from '../db/schema.js';
import { deliveryTables, sessionDeliveriesGone } from '../outbox/deliveries.js';
import { markSegmentsStale } from '../outbox/segment-queue.js';

const DAY_MS = 86_400_000;
const JOB = 'retention';
// One advisory lock for the job across all servers on the database ("footfall" in hex).
const LOCK_KEY = '7381240860008082540';

export interface Expired {
  sessions: number;
  events: number;
  /** Deliveries of every subscriber (webhooks, alerts, …) that carried those sessions. */
  deliveries: number;
}

/**
 * Deletes the sessions whose last event is older than `days` days before `now`, with their
 * events and every subscriber's deliveries that carry them. Sessions that started before the
 * limit but ended after it stay whole. Whole months go first, as partitions (dropMonths);
 * what is left before the limit is deleted a batch of sessions per statement, so that no
 * transaction grows large or holds locks for long.
 */
export async function deleteExpired(
  db: Kysely<Database>,
  days: number,
  now = new Date(),
  batch = 1000,
): Promise<Expired> {
  const cutoff = new Date(now.getTime() - days * DAY_MS).toISOString();
  const total: Expired = { sessions: 0, events: 0, deliveries: 0 };
  const add = (done: Expired) => addExpired(total, done);
  const tables = await deliveryTables(db);
  // A month whose last sessions ended after the limit, by less than two days, waits to be
  // dropped whole at the next day's run rather than be deleted row by row now.
  let waiting = sql`true`;
  if (await hasMonthPartitions(db)) {
    const dropped = await dropMonths(db, cutoff, tables, batch);
    add(dropped);
    const month = dropped.waiting;
    const start = month ? new Date(`${month.month}T00:00:00Z`) : undefined;
    const end = start && Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
    if (month && end && Date.parse(cutoff) - end < 2 * DAY_MS) {
      const bounds = monthBounds(month);
      waiting = sql`NOT (started_at >= ${bounds.start} AND started_at < ${bounds.end})`;
    }
  }
  add(await deleteRows(db, cutoff, tables, batch, waiting));
  return total;
}

function addExpired(total: Expired, done: Expired): void {
  total.sessions += done.sessions;
  total.events += done.events;
  total.deliveries += done.deliveries;
}

/**
 * Deletes the sessions before `cutoff` that also meet `only`, a batch per transaction, with
 * their events and deliveries. A batch gathers the sessions of as many workspaces as it
 * takes, one after another: a day's sessions are spread over every workspace, and deleting
 * them a workspace per statement paid each statement's triggers a hundred times over on the
 * year-of-traffic bench (7 ms a workspace for a few sessions each).
 */
async function deleteRows(
  db: Kysely<Database>,
  cutoff: string,
  tables: string[],
  batch: number,
  only: RawBuilder<unknown>,
): Promise<Expired> {
  const total: Expired = { sessions: 0, events: 0, deliveries: 0 };
  const workspaces = (await db.selectFrom('workspaces').select('id').execute()).map((w) => w.id);
  const touched = new Set<string>();
  let at = 0;
  while (at < workspaces.length) {
    const round = await againIfTransient(() =>
      db.transaction().execute(async (trx) => {
        // The sessions are locked first, in statements of their own. A writer's batch that
        // extends one of them (a visitor's late event) holds its row until it commits:
        // locking waits for it, and the deletes, each with a snapshot taken after, see the
        // event it added. One statement would delete the events its own earlier snapshot
        // saw and leave that event without its session. A batch that comes after waits on
        // the lock, finds its session gone and is done again.
        const locked: { workspace: string; id: string; started: Date; ended: Date }[] = [];
        let next = at;
        while (next < workspaces.length && locked.length < batch) {
          const workspace = workspaces[next] as string;
          const wanted = batch - locked.length;
          // started_at first: it is what the workspace's session index can range over.
          const { rows } = await sql<{ id: string; started: Date; ended: Date }>`
            SELECT id, started_at AS started, ended_at AS ended FROM sessions
            WHERE workspace_id = ${workspace} AND started_at < ${cutoff}::timestamptz
              AND ended_at < ${cutoff}::timestamptz AND (${only})
            ORDER BY started_at LIMIT ${wanted}
            -- Waits rather than skips: the webhook worker marks idle sessions for a moment,
            -- and a skipped session would outlive the limit by a day.
            FOR UPDATE`.execute(trx);
          for (const row of rows) locked.push({ workspace, ...row });
          // A workspace that filled the batch may have more: the next batch starts there.
          if (rows.length < wanted) next++;
        }
        if (locked.length === 0) return { next, done: undefined };
        const column = <K extends keyof (typeof locked)[number]>(key: K) =>
          locked.map((row) => row[key]);
        const { rows } = await sql<Expired>`
          WITH doomed AS (
            SELECT * FROM unnest(${column('workspace')}::uuid[], ${column('id')}::uuid[],
              ${column('started')}::timestamptz[], ${column('ended')}::timestamptz[])
              AS d(workspace_id, id, started_at, ended_at)
          ), events_gone AS (
            -- Within each session's time, its events' months alone are read (withinSession),
            -- not the index of every month for each session.
            DELETE FROM events e USING doomed s
            WHERE e.workspace_id = s.workspace_id AND e.session_id = s.id AND ${withinSession}
            RETURNING 1
          )${sessionDeliveriesGone(tables)}, sessions_gone AS (
            DELETE FROM sessions s USING doomed d
            WHERE s.workspace_id = d.workspace_id AND s.id = d.id
              AND s.started_at = d.started_at
            RETURNING 1
          )
          SELECT (SELECT count(*) FROM sessions_gone)::int AS sessions,
                 (SELECT count(*) FROM events_gone)::int AS events,
                 (SELECT n FROM deliveries_gone) AS deliveries`.execute(trx);
        return { next, done: rows[0], workspaces: new Set(column('workspace')) };
      }),
    );
    at = round.next;
    if (round.done) addExpired(total, round.done);
    for (const workspace of round.workspaces ?? []) touched.add(workspace);
  }
  // Their organisations lost sessions: the segment worker computes their segments again.
  for (const workspace of touched) await markSegmentsStale(db, workspace);
  return total;
}

/**
 * Drops the month partitions of events and sessions that lie wholly before `cutoff`, oldest
 * first, as long as every session of the month ended before it. Three steps, each a
 * transaction: the month is detached (no statement on the tables reaches its rows any
 * more); its rows leave the rollups and its deliveries go, and the partitions are renamed
 * `retired_…`; the retired tables are dropped. A run stopped between two steps is finished by
 * the next. Dropping alone keeps the locks DROP needs (on the tables the sessions refer to)
 * away from the rollup rows the writers share.
 */
async function dropMonths(
  db: Kysely<Database>,
  cutoff: string,
  tables: string[],
  batch: number,
): Promise<Expired & { waiting?: Month }> {
  const total: Expired & { waiting?: Month } = { sessions: 0, events: 0, deliveries: 0 };
  await dropRetired(db);
  for (const month of await monthsBefore(db, new Date(cutoff))) {
    // What is older than the month (rows of months without a partition, or of a month
    // dropped before, that came after it was detached: in the default partition) goes
    // first, row by row. Retiring a month takes it for the oldest there is: a later
    // visitor-day whose previous day lay in it has none after it.
    addExpired(
      total,
      await deleteRows(db, cutoff, tables, batch, sql`started_at < ${monthBounds(month).start}`),
    );
    // A session still going at the limit keeps its month, and the months after it.
    // DETACH and DROP lock the tables the sessions refer to (for their foreign keys), which
    // a writer's batch may hold while it waits on the sessions: PostgreSQL breaks the cycle,
    // and the step is done again.
    if (
      month.attached &&
      !(await againIfTransient(() =>
        detachMonth(db, month, new Date(cutoff), async (trx, detached) => {
          if (detached.includes('stats_visitor_days')) await countsWithoutMonth(trx, month);
        }),
      ))
    ) {
      total.waiting = month;
      break;
    }
    addExpired(total, await againIfTransient(() => retireMonth(db, month, tables)));
    await dropRetired(db);
  }
  return total;
}

async function dropRetired(db: Kysely<Database>): Promise<void> {
  const retired = `^retired_(${PARTITIONED.join('|')})_[0-9]{4}_[0-9]{2}$`;
  const { rows } = await sql<{ name: string }>`
    SELECT relname AS name FROM pg_class
    WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace
      AND relname ~ ${retired}`.execute(db);
  for (const { name } of rows) {
    await againIfTransient(() => sql`DROP TABLE IF EXISTS ${sql.table(name)}`.execute(db));
  }
}

/**
 * A detached month's rows out of the rollups, its deliveries deleted, and its partitions
 * renamed to be dropped, in one transaction. DROP fires no trigger, so this does what the
 * delete triggers would, for a month at once (test/stats/writer-rollups.test.ts recounts
 * every rollup after it):
 * - the rollups by a session's first day or an event's day (sources, organisations, pages),
 *   their monthly sums, the visitors' days and the organisations' places by month are
 *   partitioned by month too: their month went with the sessions' (detachMonth, which moved
 *   the visitor counts with the days: countsWithoutMonth), and is renamed and dropped with it;
 * - the month's sessions that went on into the next month leave theirs through the triggers
 *   (their later events) and the visitor rollup's own function (their later days);
 * - organisation figures lose the month's ended sessions (its places' sums), and first and
 *   last seen are read again where a session of the month held them.
 */
async function retireMonth(db: Kysely<Database>, month: Month, tables: string[]): Promise<Expired> {
  const sessions = sql.table(month.partitions.sessions);
  const events = sql.table(month.partitions.events);
  const { first, next, start, end } = monthBounds(month);
  return db.transaction().execute(async (trx) => {
    const run = (query: RawBuilder<unknown>) => query.execute(trx);
    const keep = (name: string, query: RawBuilder<unknown>) => keepTable(trx, name, query);
    // The month's sessions by organisation and place, and the joins of a month's
    // organisations, fit in memory: PostgreSQL's 4 MB default sent them to disk in batches.
    await run(sql`SET LOCAL work_mem = '64MB'`);
    // Each statement here runs once over a month: what it reads costs more than compiling it
    // saves. The planner's estimates (a probe per later month for each organisation) put the
    // figures' update above the thresholds of JIT with inlining and optimisation, which then
    // took 2.7 of its 4.4 s (January of the year bench, EXPLAIN ANALYZE with and without).
    await run(sql`SET LOCAL jit = off`);
    const { rows: exists } = await sql<{
      sessions: boolean;
      events: boolean;
      days: boolean;
      places: boolean;
    }>`
      SELECT to_regclass(${month.partitions.sessions}) IS NOT NULL AS sessions,
        to_regclass(${month.partitions.events}) IS NOT NULL AS events,
        to_regclass(${month.partitions.stats_visitor_days}) IS NOT NULL AS days,
        to_regclass(${month.partitions.organisation_place_months}) IS NOT NULL AS places
    `.execute(trx);
    if (!exists[0]?.sessions) return { sessions: 0, events: 0, deliveries: 0 };
    // The month's deliveries and outbox rows, found from the side that holds fewer: not
    // materialised, `doomed` is the partition itself, with its statistics and its key, not a
    // month of sessions the planner knows nothing of (which it sorted on disk to merge them
    // with an empty outbox: 2.6 s of 3.7 on the year bench).
    const { rows: delivered } = await sql<{ deliveries: number }>`
      WITH doomed AS NOT MATERIALIZED (
        SELECT workspace_id, id FROM ${sessions}
      )${sessionDeliveriesGone(tables)}
      SELECT (SELECT n FROM deliveries_gone) AS deliveries`.execute(trx);
    // Counted in a statement of their own: one that deletes cannot use parallel workers.
    const { rows: counted } = await sql<{ sessions: number; events: number }>`
      SELECT (SELECT count(*) FROM ${sessions})::int AS sessions,
        ${exists[0]?.events ? sql`(SELECT count(*) FROM ${events})::int` : sql`0`} AS events
    `.execute(trx);

    // Sessions that went on into the next month (found in one pass of the month, where each
    // of the two statements below scanned it): their events there, through the table (its
    // triggers take them from the page rollup), read within each session's time (266
    // sessions probed the index of every later month, 0.8 s on the year-of-traffic bench),
    // and their days there.
    await keep(
      'crossing',
      sql`
        SELECT workspace_id, id, visitor_id, organisation_id, started_at, ended_at
        FROM ${sessions} WHERE ended_at >= ${end}`,
    );
    const { rows: later } = await sql<{ n: number }>`
      WITH gone AS (
        DELETE FROM events e USING crossing s
        WHERE e.ts >= ${end} AND e.workspace_id = s.workspace_id AND e.session_id = s.id
          AND ${withinSession}
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.execute(trx);
    await run(sql`
      SELECT stats_add_visitors(array_agg(workspace_id), array_agg(visitor_id), array_agg(day),
        array_agg(sessions), array_agg(attributed))
      FROM (SELECT workspace_id, visitor_id, day, -count(*)::int AS sessions,
              -count(organisation_id)::int AS attributed
            FROM crossing, stats_session_days(started_at, ended_at) day
            WHERE day >= ${next} GROUP BY 1, 2, 3) d
      HAVING count(*) > 0`);

    // Rows of the month can still come after it was detached (an event with an old
    // timestamp): they go to the default partitions, which are held still meanwhile. The
    // rollups count them there, as the writer added them; only a month detached before the
    // visitors' days were partitioned counts its days again (below).
    await run(sql`LOCK TABLE sessions_default, events_default IN SHARE MODE`);
    const staying = sql`FROM sessions WHERE started_at < ${end} AND ended_at >= ${start}`;
    // The month's organisations: summed from its places by month (migration 0050), whose
    // partition went with the sessions' (and the places with it). A month detached before that
    // migration has none: its ended sessions are grouped, in one pass.
    await keep(
      'retiring_organisations',
      sql`
        SELECT workspace_id, organisation_id, sum(sessions)::int AS sessions,
          sum(pageviews)::bigint AS pageviews, sum(micros)::bigint AS micros,
          min(first_seen) AS first_seen, max(last_seen) AS last_seen
        FROM ${
          exists[0]?.places
            ? sql.table(month.partitions.organisation_place_months)
            : sql`(SELECT workspace_id, organisation_id, 1 AS sessions, pageviews,
                session_micros(started_at, ended_at) AS micros, started_at AS first_seen,
                ended_at AS last_seen
              FROM ${sessions} WHERE ended_notified AND organisation_id IS NOT NULL) s`
        }
        GROUP BY 1, 2`,
    );
    const inMonth = sql`day >= ${first} AND day < ${next}`;

    // The rollups kept by day or by month went with the month's partitions (migration 0044),
    // detached with the sessions'. What the rows that came after the detach count (an event
    // with an old timestamp) is in their default partitions, as the rows are in the
    // sessions' and events': nothing to count again.

    // Visitors. The month's days went with their partition, and their counts with them
    // (detachMonth). A month detached before the days were partitioned (migration 0046) has
    // them still in the table: they go here, and their counts with them, before what stays of
    // the month (rows that came after the detach) is added back as the writer adds a session.
    if (!exists[0]?.days) {
      await run(sql`DELETE FROM stats_visitor_days WHERE ${inMonth}`);
      await countsWithoutMonth(trx, month);
      await run(sql`
        SELECT stats_add_visitors(array_agg(workspace_id), array_agg(visitor_id),
          array_agg(day), array_agg(sessions), array_agg(attributed))
        FROM (SELECT workspace_id, visitor_id, day, count(*)::int AS sessions,
                count(organisation_id)::int AS attributed
              FROM (SELECT * ${staying}) s, stats_session_days(s.started_at, s.ended_at) day
              WHERE day >= ${first} AND day < ${next} GROUP BY 1, 2, 3) d
        HAVING count(*) > 0`);
    }

    // Organisation figures, by the month's ended sessions. A row the month takes to nothing
    // goes in one write; only the rest are updated, each once (most of a month's visitors
    // came in it alone, and updating their rows first cost the job a second write of each).
    const { rows: emptied } = await sql<{ left: boolean }>`
      WITH deleted AS (
        DELETE FROM organisation_figures t USING retiring_organisations g
        WHERE t.workspace_id = g.workspace_id AND t.organisation_id = g.organisation_id
          AND t.sessions = g.sessions
        RETURNING 1)
      SELECT (SELECT count(*) FROM deleted) < (SELECT count(*) FROM retiring_organisations)
        AS left`.execute(trx);
    if (emptied[0]?.left) await updateFigures(trx, month);

    // Their organisations lost sessions: the segment worker computes their segments again.
    const { rows: touched } = await sql<{ workspace_id: string }>`
      SELECT DISTINCT workspace_id FROM retiring_organisations`.execute(trx);
    for (const { workspace_id } of touched) await markSegmentsStale(trx, workspace_id);
    const { rows: partitions } = await sql<{ name: string }>`
      SELECT name FROM unnest(${Object.values(month.partitions)}::text[]) name
      WHERE to_regclass(name) IS NOT NULL`.execute(trx);
    for (const { name } of partitions) {
      await run(sql`ALTER TABLE ${sql.table(name)} RENAME TO ${sql.table(`retired_${name}`)}`);
    }
    return {
      sessions: counted[0]?.sessions ?? 0,
      events: (counted[0]?.events ?? 0) + (later[0]?.n ?? 0),
      deliveries: delivered[0]?.deliveries ?? 0,
    };
  });
}

/**
 * The visitor counts without a month's days, when the days go whole (their partition
 * detached, or deleted at once). The month is the oldest there is (months go oldest first,
 * and older rows went one by one before), so a later day whose previous day lay in it now has
 * none: its counts move to "no previous day" as they stand, in one pass of the counts,
 * without reading any visitor's days again.
 */
async function countsWithoutMonth(trx: Kysely<Database>, month: Month): Promise<void> {
  const { first, next } = monthBounds(month);
  await sql`DELETE FROM stats_visitor_counts WHERE day >= ${first} AND day < ${next}`.execute(trx);
  await keepTable(
    trx,
    'previous_in_month',
    sql`
      SELECT ctid AS at, workspace_id, day, identified, visitors FROM stats_visitor_counts
      WHERE previous_day < ${next}`,
  );
  await sql`
    DELETE FROM stats_visitor_counts WHERE ctid = ANY (ARRAY(SELECT at FROM previous_in_month))
  `.execute(trx);
  await sql`
    INSERT INTO stats_visitor_counts AS t (workspace_id, day, identified, previous_day, visitors)
    SELECT workspace_id, day, identified, NULL, sum(visitors)
    FROM previous_in_month GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (workspace_id, day, identified, previous_day) DO UPDATE
      SET visitors = t.visitors + excluded.visitors`.execute(trx);
}

/** A temporary table of keys, analysed: the planner knows nothing of it otherwise. */
async function keepTable(
  trx: Kysely<Database>,
  name: string,
  query: RawBuilder<unknown>,
): Promise<void> {
  await sql`CREATE TEMPORARY TABLE ${sql.table(name)} ON COMMIT DROP AS ${query}`.execute(trx);
  await sql`ANALYZE ${sql.table(name)}`.execute(trx);
}

/**
 * The organisation figures the retiring month leaves (`retiring_organisations`, its ended
 * sessions by organisation, less the rows it took to nothing), in one update: their sums, and
 * first and last seen read again where a session of the month held them.
 *
 * They are read from the figures by month (migration 0050), whose month went with the
 * sessions'. An organisation's first session now lies in the earliest month that holds one,
 * or in the default partition. Most organisations came back the next month: that month's rows
 * and the default partition's are read in one pass each (the next month's sessions were
 * grouped for it before: 0.44 s of a month on the year-of-traffic bench). The rest, and last
 * seen where the month held it, read their organisation's rows of the later months.
 */
async function updateFigures(trx: Kysely<Database>, month: Month): Promise<void> {
  const { next } = monthBounds(month);
  const firstIn = (rows: RawBuilder<unknown>) => sql`
    SELECT workspace_id, organisation_id, min(first_seen) AS first_seen ${rows} GROUP BY 1, 2`;
  await keepTable(
    trx,
    'next_month_first',
    firstIn(sql`FROM organisation_place_months WHERE month = ${next}`),
  );
  await keepTable(trx, 'default_first', firstIn(sql`FROM organisation_place_months_default`));
  const ofOrganisation = sql`FROM organisation_place_months m
    WHERE m.workspace_id = f.workspace_id AND m.organisation_id = f.organisation_id`;
  await sql`
    UPDATE organisation_figures f SET
      sessions = f.sessions - g.sessions,
      pageviews = f.pageviews - g.pageviews,
      micros = f.micros - g.micros,
      first_seen = CASE WHEN g.first_seen <= f.first_seen
        THEN least(d.first_seen, coalesce(n.first_seen,
          (SELECT min(m.first_seen) ${ofOrganisation} AND m.month > ${next})))
        ELSE f.first_seen END,
      last_seen = CASE WHEN g.last_seen >= f.last_seen
        THEN (SELECT max(m.last_seen) ${ofOrganisation})
        ELSE f.last_seen END
    FROM retiring_organisations g
    LEFT JOIN next_month_first n
      ON n.workspace_id = g.workspace_id AND n.organisation_id = g.organisation_id
    LEFT JOIN default_first d
      ON d.workspace_id = g.workspace_id AND d.organisation_id = g.organisation_id
    WHERE f.workspace_id = g.workspace_id AND f.organisation_id = g.organisation_id`.execute(trx);
}

/**
 * Runs the retention job when a day has passed since it last ran on this database. Of
 * several servers, the one holding the advisory lock runs it; the others skip. Null when
 * it did not run here.
 */
export async function runRetentionIfDue(
  db: Kysely<Database>,
  days: number,
  now = new Date(),
): Promise<Expired | null> {
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{ locked: boolean }>`
      SELECT pg_try_advisory_lock(${LOCK_KEY}::bigint) AS locked`.execute(connection);
    if (!rows[0]?.locked) return null;
    try {
      // Marked before it runs: a run cut short is taken up again the next day.
      const due = await sql`
        INSERT INTO scheduled_jobs (name, last_run_at) VALUES (${JOB}, ${now.toISOString()})
        ON CONFLICT (name) DO UPDATE SET last_run_at = excluded.last_run_at
        WHERE scheduled_jobs.last_run_at <= excluded.last_run_at - interval '1 day'
        RETURNING name`.execute(connection);
      if (due.rows.length === 0) return null;
      return await deleteExpired(connection, days, now);
    } finally {
      await sql`SELECT pg_advisory_unlock(${LOCK_KEY}::bigint)`.execute(connection);
    }
  });
}
