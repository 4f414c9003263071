import { type Kysely, sql } from 'kysely';

/**
 * What the migrations that partition a table by month share (0044 for the rollups kept by
 * day or month, 0046 for the visitor days).
 */

/** A clean-up delete of migration 0035, whole: the rows at the places the look-ups found. */
export const BY_PLACE =
  /WHERE t\.ctid = ANY \(ARRAY\(\s*SELECT x\.ctid FROM([\s\S]*?)\(SELECT t\.ctid FROM([\s\S]*?)\) x\)\);/g;
/** The same delete once a place alone names a row in each partition: by partition and place,
 * still found through the key, one look-up each. */
export const BY_PARTITION_AND_PLACE =
  'WHERE (t.tableoid, t.ctid) IN (\n          SELECT x.tableoid, x.ctid FROM$1(SELECT t.tableoid, t.ctid FROM$2) x);';

/** The first month the sessions have a partition of (0034 made them from the data), or this
 * month, YYYY-MM-DD. */
export async function firstSessionsMonth(db: Kysely<unknown>): Promise<string> {
  const { rows } = await sql<{ month: string }>`
    SELECT coalesce(min(to_date(substr(c.relname, 10), 'YYYY_MM')),
      (now() AT TIME ZONE 'UTC')::date)::text AS month
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'sessions'::regclass
      AND c.relname ~ '^sessions_[0-9]{4}_[0-9]{2}$'`.execute(db);
  return rows[0]?.month as string;
}

/**
 * Makes `table` a table partitioned by month on `key` (a date or a timestamp), with a
 * partition for each month from `from` to two months ahead and a default partition for the
 * rest, and moves its rows over as they are. Keys, foreign keys, indexes and triggers are
 * read from the catalogue before and made again on the partitioned table once the rows are
 * in. The caller holds the table's lock.
 */
export async function partitionByMonth(
  db: Kysely<unknown>,
  table: string,
  key: string,
  from: string,
): Promise<void> {
  const { rows: made } = await sql<{ statement: string }>`
    SELECT format('ALTER TABLE %I ADD CONSTRAINT %I %s', ${table}::text, conname,
        pg_get_constraintdef(oid)) AS statement
    FROM pg_constraint WHERE conrelid = ${table}::regclass AND contype IN ('p', 'u', 'f')
    UNION ALL
    SELECT pg_get_indexdef(indexrelid) FROM pg_index i
    WHERE indrelid = ${table}::regclass AND NOT EXISTS (
      SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
    UNION ALL
    SELECT pg_get_triggerdef(oid) FROM pg_trigger
    WHERE tgrelid = ${table}::regclass AND NOT tgisinternal`.execute(db);
  await sql`
    CREATE TABLE ${sql.table(`${table}_by_month`)} (LIKE ${sql.table(table)} INCLUDING DEFAULTS)
      PARTITION BY RANGE (${sql.ref(key)})`.execute(db);
  await sql`CREATE TABLE ${sql.table(`${table}_default`)}
    PARTITION OF ${sql.table(`${table}_by_month`)} DEFAULT`.execute(db);
  await sql`ALTER TABLE ${sql.table(table)} RENAME TO ${sql.table(`${table}_old`)}`.execute(db);
  await sql`ALTER TABLE ${sql.table(`${table}_by_month`)} RENAME TO ${sql.table(table)}`.execute(
    db,
  );
  await sql`
    SELECT create_month_partitions(${table}, ${from}::date,
      ((now() AT TIME ZONE 'UTC') + interval '2 months')::date)`.execute(db);
  await sql`INSERT INTO ${sql.table(table)} SELECT * FROM ${sql.table(`${table}_old`)}`.execute(db);
  // Its constraints' and triggers' names are free again.
  await sql`DROP TABLE ${sql.table(`${table}_old`)}`.execute(db);
  for (const { statement } of made) await sql.raw(statement).execute(db);
}
