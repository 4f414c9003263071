import { type Kysely, sql } from 'kysely';
import { rewriteFunction } from '../function-text.js';
import {
  BY_PARTITION_AND_PLACE,
  BY_PLACE,
  firstSessionsMonth,
  partitionByMonth,
} from '../month-partitioning.js';

/**
 * The stats rollups kept by day or by month are partitioned by month like the sessions
 * (issue "storage at scale"), so that retention takes a month out of them by detaching the
 * month's partitions with the sessions', rather than deleting its rows one by one: on the
 * year-of-traffic bench that deleting took 25 s of the month's 100 s.
 *
 * - The tables and their keys: `stats_organisation_sources`, `stats_organisation_days`,
 *   `stats_source_days`, `stats_page_days`, `stats_workspace_days` by `day`;
 *   `stats_organisation_months`, `stats_page_months` by `month`. Each has the months the
 *   sessions have, from the first sessions partition to two months ahead, and a default
 *   partition for the rest; the partitions job makes the later ones with the sessions'.
 * - `create_month_partitions` reads the table's partition key from the catalogue, a date or
 *   a timestamp, rather than knowing only sessions and events.
 * - The rows move as they are. Keys, foreign keys and triggers are read from the catalogue
 *   before and made again on the partitioned table once the rows are in (the triggers of
 *   the daily tables keep the monthly ones: they must not count the rows a second time).
 * - The writer functions delete the rows a statement took to nothing by their place in
 *   the table (migration 0035). A place alone now names a row in each partition: they name
 *   it by partition and place, still found through the key, one look-up each.
 */
const ROLLUPS = [
  ['stats_organisation_sources', 'day'],
  ['stats_organisation_days', 'day'],
  ['stats_source_days', 'day'],
  ['stats_page_days', 'day'],
  ['stats_workspace_days', 'day'],
  ['stats_organisation_months', 'month'],
  ['stats_page_months', 'month'],
] as const;

const WRITERS = [
  ['stats_apply_sessions', 3],
  ['stats_apply_pages', 1],
  ['stats_roll_organisation_days', 2],
  ['stats_roll_page_days', 1],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`SET LOCAL lock_timeout = 0`.execute(db);
  await sql`LOCK TABLE ${sql.join(ROLLUPS.map(([table]) => sql.table(table)))}
    IN ACCESS EXCLUSIVE MODE`.execute(db);

  await sql`
    CREATE OR REPLACE FUNCTION create_month_partitions(parent text, first_month date,
      last_month date)
    RETURNS int LANGUAGE plpgsql AS $$
    DECLARE
      key text;
      by_date boolean;
      month date := date_trunc('month', first_month)::date;
      name text;
      lower_bound text;
      upper_bound text;
      made int := 0;
    BEGIN
      SELECT a.attname, a.atttypid = 'date'::regtype INTO key, by_date
      FROM pg_partitioned_table p
      JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
      WHERE p.partrelid = to_regclass(parent) AND p.partstrat = 'r' AND p.partnatts = 1;
      IF key IS NULL THEN
        RAISE EXCEPTION 'create_month_partitions: % is not partitioned by month', parent;
      END IF;
      WHILE month <= last_month LOOP
        name := format('%s_%s', parent, to_char(month, 'YYYY_MM'));
        IF by_date THEN
          lower_bound := month::text;
          upper_bound := (month + interval '1 month')::date::text;
        ELSE
          lower_bound := (month::timestamp AT TIME ZONE 'UTC')::text;
          upper_bound := ((month + interval '1 month')::timestamp AT TIME ZONE 'UTC')::text;
        END IF;
        IF to_regclass(name) IS NULL THEN
          -- Rows of the month the default partition took meanwhile move over, directly
          -- between the partitions: the rollups count them already, and the triggers on
          -- the parent table do not fire.
          EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', name, parent);
          EXECUTE format(
            'WITH moved AS (DELETE FROM %I WHERE %I >= %L AND %I < %L RETURNING *) '
            'INSERT INTO %I SELECT * FROM moved',
            parent || '_default', key, lower_bound, key, upper_bound, name);
          EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
            parent, name, lower_bound, upper_bound);
          made := made + 1;
        END IF;
        month := (month + interval '1 month')::date;
      END LOOP;
      RETURN made;
    END $$
  `.execute(db);

  // The months the sessions have (0034 made them from the data, up to two years back).
  const from = await firstSessionsMonth(db);
  for (const [table, key] of ROLLUPS) await partitionByMonth(db, table, key, from);

  for (const [name, deletes] of WRITERS) {
    await rewriteFunction(db, name, BY_PLACE, BY_PARTITION_AND_PLACE, deletes);
  }
  await sql`ANALYZE ${sql.join(ROLLUPS.map(([table]) => sql.table(table)))}`.execute(db);
}
