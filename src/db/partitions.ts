import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema.js';

/**
 * The month partitions of events and sessions (migration 0034, contract §19 storage) and of
 * the stats rollups kept by day or month (0044, 0046) and the organisation figures by month
 * (0050): made ahead of the traffic that fills them, and dropped whole when retention is past
 * them.
 */

/** Months made ahead of the current one, so a month's first event never waits for DDL. */
export const MONTHS_AHEAD = 2;

// One advisory lock across servers for making and dropping partitions ("partitn" in hex).
const LOCK_KEY = '7021913812415263598';

/** The tables partitioned by month: sessions and events, and the rollups kept of them. */
export const PARTITIONED = [
  'sessions',
  'events',
  'stats_organisation_sources',
  'stats_organisation_days',
  'stats_source_days',
  'stats_page_days',
  'stats_workspace_days',
  'stats_organisation_months',
  'stats_page_months',
  'stats_visitor_days',
  'organisation_place_months',
] as const;

export type Partitioned = (typeof PARTITIONED)[number];

/** Those of PARTITIONED that are, in a database migrated only part of the way. */
async function partitionedNow(db: Kysely<Database>): Promise<Partitioned[]> {
  const { rows } = await sql<{ name: Partitioned }>`
    SELECT name FROM unnest(${PARTITIONED}::text[]) WITH ORDINALITY AS t(name, n)
    WHERE EXISTS (SELECT 1 FROM pg_partitioned_table p WHERE p.partrelid = to_regclass(t.name))
    ORDER BY n`.execute(db);
  return rows.map((row) => row.name);
}

/**
 * Makes the month partitions from the month of `now` to MONTHS_AHEAD after it where
 * missing, under a lock so servers starting together do not race. Answers how many it made.
 */
export async function ensureMonthPartitions(
  db: Kysely<Database>,
  now = new Date(),
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_KEY}::bigint)`.execute(trx);
    let made = 0;
    for (const table of await partitionedNow(trx)) {
      const { rows } = await sql<{ made: number }>`
        SELECT create_month_partitions(${table},
          (${now.toISOString()}::timestamptz AT TIME ZONE 'UTC')::date,
          ((${now.toISOString()}::timestamptz AT TIME ZONE 'UTC')
            + ${`${MONTHS_AHEAD} months`}::interval)::date) AS made`.execute(trx);
      made += rows[0]?.made ?? 0;
    }
    return made;
  });
}

/** Whether the schema has month partitions yet (a database migrated part of the way). */
export async function hasMonthPartitions(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`
    SELECT to_regproc('create_month_partitions') IS NOT NULL AS found`.execute(db);
  return rows[0]?.found === true;
}

export interface Month {
  /** First day of the month, YYYY-MM-DD. */
  month: string;
  /** Each partitioned table's partition of the month (a database migrated before 0044 has
   * none of the rollups'). */
  partitions: Record<Partitioned, string>;
  /** Whether the partitions still hang from their tables (false: detached, to be dropped). */
  attached: boolean;
}

/** A month's first and next days, and the instants (UTC) its partitions start and end at. */
export function monthBounds(month: Month) {
  const first = sql`${month.month}::date`;
  const next = sql`(${month.month}::date + interval '1 month')::date`;
  return {
    first,
    next,
    start: sql`${first}::timestamp AT TIME ZONE 'UTC'`,
    end: sql`${next}::timestamp AT TIME ZONE 'UTC'`,
  };
}

/**
 * The month partitions that lie wholly before `cutoff`, oldest first: those attached, and
 * those a retention run detached and did not drop (it stopped half-way).
 */
export async function monthsBefore(db: Kysely<Database>, cutoff: Date): Promise<Month[]> {
  const { rows } = await sql<{ month: string; attached: boolean }>`
    SELECT to_char(to_date(substr(c.relname, 10), 'YYYY_MM'), 'YYYY-MM-DD') AS month,
      EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid) AS attached
    FROM pg_class c
    WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
      AND c.relname ~ '^sessions_[0-9]{4}_[0-9]{2}$'
      AND to_date(substr(c.relname, 10), 'YYYY_MM') + interval '1 month'
        <= (${cutoff.toISOString()}::timestamptz AT TIME ZONE 'UTC')
    ORDER BY 1`.execute(db);
  return rows.map(({ month, attached }) => {
    const suffix = month.slice(0, 7).replace('-', '_');
    const partitions = Object.fromEntries(
      PARTITIONED.map((table) => [table, `${table}_${suffix}`]),
    ) as Record<Partitioned, string>;
    return { month, attached, partitions };
  });
}

/**
 * Detaches a month's partitions, unless a session of the month ended at `cutoff` or later:
 * from then on no statement on the tables reaches their rows. The check is made under the
 * detach's lock, so no writer extends a session of the month between the two. `detached`
 * runs in the same transaction, after, with the tables whose partitions it detached: what
 * the rest of the schema keeps of those rows changes with them. Answers whether it detached
 * them.
 */
export async function detachMonth(
  db: Kysely<Database>,
  month: Month,
  cutoff: Date,
  detached?: (trx: Kysely<Database>, tables: Partitioned[]) => Promise<void>,
): Promise<boolean> {
  const running = new Error('a session of the month is still going');
  const detach = db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_KEY}::bigint)`.execute(trx);
    // A table without its partition of the month (made by hand with the sessions' alone)
    // has the month's rows in its default partition: they move to one made now, and go
    // with the rest.
    if (month.attached) {
      for (const table of await partitionedNow(trx)) {
        await sql`SELECT create_month_partitions(${table}, ${month.month}::date,
          ${month.month}::date)`.execute(trx);
      }
    }
    const tables: Partitioned[] = [];
    for (const table of PARTITIONED) {
      const partition = month.partitions[table];
      const { rows } = await sql<{ attached: boolean }>`
        SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(${partition}))
          AS attached`.execute(trx);
      if (rows[0]?.attached) {
        await sql`ALTER TABLE ${sql.table(table)} DETACH PARTITION ${sql.table(partition)}`.execute(
          trx,
        );
        tables.push(table);
      }
    }
    const { rows } = await sql<{ running: boolean }>`
      SELECT EXISTS (SELECT 1 FROM ${sql.table(month.partitions.sessions)}
        WHERE ended_at >= ${cutoff.toISOString()}::timestamptz) AS running`.execute(trx);
    // Thrown to roll the detach back.
    if (rows[0]?.running) throw running;
    await detached?.(trx, tables);
  });
  return detach.then(
    () => true,
    (error: unknown) => {
      if (error === running) return false;
      throw error;
    },
  );
}

/**
 * A session's events lie between its start and its end (the writer makes them so: the start
 * is its earliest event, the end its latest). Said in a join of `sessions s` to `events e`,
 * it lets PostgreSQL read, for each session, only the month partitions of its own time,
 * not the index of every month: a segment's year of page views went from 26 s to 3 s on
 * the year-of-traffic bench.
 */
export const withinSession = sql`e.ts >= s.started_at AND e.ts <= s.ended_at`;

/**
 * The sessions `s` of a workspace that overlap the instants from `from` to `to` (exclusive):
 * started before `to` and ended at `from` or later. They also started no longer before
 * `from` than the workspace's longest session (migration 0040), which is what lets
 * PostgreSQL read, for each organisation, only the months that can hold them rather than
 * all its sessions: a segment's visitors over 30 days went from 217 to 22 ms.
 */
export function overlapping(
  workspaceId: string,
  from: RawBuilder<unknown>,
  to?: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const longest = sql`coalesce((SELECT l.longest FROM session_lengths l
    WHERE l.workspace_id = ${workspaceId}), interval '0')`;
  return sql`s.ended_at >= ${from} AND s.started_at >= ${from} - ${longest}
    ${to ? sql`AND s.started_at < ${to}` : sql``}`;
}
