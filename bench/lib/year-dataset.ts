import { type Kysely, sql } from 'kysely';
import { PARTITIONED } from '../../src/db/partitions.js';
import type { Database } from '../../src/db/schema.js';
import { scoreDueWorkspace } from '../../src/scoring/job.js';
import { createWorkspace } from '../../src/workspaces/store.js';
import { seedWorkspace } from './dataset.js';

/** A year of traffic at scale 1: the sizes issue 28 asks for. */
const FULL = { sessions: 10_000_000, largest: 3_000_000, organisations: 100_000 };
export const WORKSPACES = 100;
export const DAYS = 365;

export interface WorkspaceSize {
  sessions: number;
  organisations: number;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * The workspaces' sizes, largest first: the largest holds 30 % of the sessions, the others'
 * share falls off as 1/rank (the second 17 %, the last 0.17 %). Organisations follow the
 * sessions in proportion, at least one each; rounding's remainder goes to the largest.
 */
export function workspaceSizes(scale: number): WorkspaceSize[] {
  const total = Math.round(FULL.sessions * scale);
  const largest = Math.round(FULL.largest * scale);
  const weights = Array.from({ length: WORKSPACES - 1 }, (_, k) => 1 / (k + 2));
  const share = sum(weights);
  const rest = weights.map((w) => Math.max(1, Math.floor(((total - largest) * w) / share)));
  rest[0] = (rest[0] ?? 0) + total - largest - sum(rest);
  const sessions = [largest, ...rest];
  const allOrganisations = Math.round(FULL.organisations * scale);
  const organisations = sessions.map((n) =>
    Math.max(1, Math.floor((allOrganisations * n) / total)),
  );
  organisations[0] = (organisations[0] ?? 0) + allOrganisations - sum(organisations);
  return sessions.map((n, i) => ({ sessions: n, organisations: organisations[i] ?? 1 }));
}

/** What a finished build leaves in its database, so that a later run can measure it again. */
export interface Built {
  scale: number;
  /** Largest first. */
  workspaces: string[];
  builtAt: Date;
  /** Seconds per phase, in order. */
  phases: [string, number][];
}

/** The build a database holds, null when none finished there. */
export async function findBuilt(db: Kysely<Database>): Promise<Built | null> {
  await sql`
    CREATE TABLE IF NOT EXISTS bench_year_dataset (
      scale float8 NOT NULL, workspaces uuid[] NOT NULL, built_at timestamptz NOT NULL,
      phases jsonb NOT NULL
    )`.execute(db);
  const { rows } = await sql<{
    scale: number;
    workspaces: string[];
    built_at: Date;
    phases: [string, number][];
  }>`SELECT scale, workspaces, built_at, phases FROM bench_year_dataset`.execute(db);
  const row = rows[0];
  return row
    ? { scale: row.scale, workspaces: row.workspaces, builtAt: row.built_at, phases: row.phases }
    : null;
}

/**
 * Builds the data set (`WORKSPACES` workspaces of `ownerId`, sessions over `DAYS` days ending
 * today) and marks it built. Phases: companies and organisations, sessions, page views (each
 * summed over the workspaces; the stats rollups and organisation figures are kept by the
 * tables' triggers as the rows go in), VACUUM ANALYZE, the first full lead scoring.
 */
export async function buildYear(
  db: Kysely<Database>,
  ownerId: string,
  scale: number,
  log: (line: string) => void,
): Promise<Built> {
  const sizes = workspaceSizes(scale);
  const phases: Record<string, number> = {
    'companies and organisations': 0,
    sessions: 0,
    'page views': 0,
  };
  const workspaces: string[] = [];
  const building = performance.now();
  // The year's month partitions of every table kept by month, as the partitions job would
  // have made them month by month (migrations 0034 and 0044): without them the year would
  // sit in the default partitions, and retention would first move a month out of them.
  await sql`
    SELECT create_month_partitions(t, (now() - ${`${DAYS + 1} days`}::interval)::date,
      now()::date)
    FROM unnest(${PARTITIONED}::text[]) t`.execute(db);
  for (const [rank, size] of sizes.entries()) {
    const ws = (
      await createWorkspace(db, ownerId, {
        name: `Year ${rank + 1}`,
        url: 'https://bench.example',
        usageLimit: 10_000_000,
      })
    ).id;
    const times = await seedWorkspace(db, ws, { ...size, days: DAYS, finish: false });
    phases['companies and organisations'] =
      (phases['companies and organisations'] ?? 0) + times.organisations / 1000;
    phases.sessions = (phases.sessions ?? 0) + times.sessions / 1000;
    phases['page views'] = (phases['page views'] ?? 0) + times.events / 1000;
    workspaces.push(ws);
    if (rank === 0 || (rank + 1) % 10 === 0) {
      log(
        `  workspace ${rank + 1} of ${sizes.length}: ${size.sessions.toLocaleString('en')} sessions, ${size.organisations.toLocaleString('en')} organisations (${seconds(performance.now() - building)} so far)`,
      );
    }
  }
  let started = performance.now();
  await sql`VACUUM ANALYZE`.execute(db);
  phases['vacuum analyse'] = (performance.now() - started) / 1000;
  started = performance.now();
  // The app's scoring job would do it during the measurements otherwise.
  await scoreEverythingDue(db);
  phases['lead scores'] = (performance.now() - started) / 1000;
  const built = { scale, workspaces, builtAt: new Date(), phases: Object.entries(phases) };
  await sql`
    INSERT INTO bench_year_dataset (scale, workspaces, built_at, phases)
    VALUES (${scale}, ${workspaces}::uuid[], ${built.builtAt.toISOString()},
      ${JSON.stringify(built.phases)}::jsonb)`.execute(db);
  return built;
}

/** Full lead scorings of every workspace due one (all of them after a build, or an hour). */
export async function scoreEverythingDue(db: Kysely<Database>): Promise<void> {
  while (await scoreDueWorkspace(db)) {}
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Bytes of the database, and of sessions and events with their indexes and any partitions. */
export async function diskUse(db: Kysely<Database>) {
  // pg_partition_tree lists a partitioned table's tree, itself included (of size 0), and
  // nothing for a table that is not partitioned: the table is added, once.
  const total = (table: string) => sql`
    (SELECT sum(pg_total_relation_size(c))::float8 FROM (
      SELECT ${table}::regclass AS c UNION SELECT relid FROM pg_partition_tree(${table})) tree)`;
  const { rows } = await sql<{ database: number; sessions: number; events: number }>`
    SELECT pg_database_size(current_database())::float8 AS database,
      ${total('sessions')} AS sessions, ${total('events')} AS events`.execute(db);
  const row = rows[0] ?? { database: 0, sessions: 0, events: 0 };
  // Of the rest, the tables that hold most (the rollups, the organisations' figures).
  const others = await sql<{ name: string; bytes: number }>`
    SELECT c.relname AS name, pg_total_relation_size(c.oid)::float8 AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND NOT c.relispartition
      AND c.relname NOT IN ('sessions', 'events')
    ORDER BY bytes DESC LIMIT 5`.execute(db);
  const gb = (bytes: number) =>
    bytes < 1e9 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e9).toFixed(2)} GB`;
  return `database ${gb(row.database)}: sessions ${gb(row.sessions)}, events ${gb(row.events)} (with their indexes and partitions), the rest ${gb(row.database - row.sessions - row.events)} (most in ${others.rows.map((r) => `${r.name} ${gb(r.bytes)}`).join(', ')})`;
}
