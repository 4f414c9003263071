import { type Kysely, sql } from 'kysely';

/**
 * Events and sessions partitioned by month (contract §19, storage): retention drops whole
 * months instead of deleting row by row, and a month's rows sit together on disk.
 *
 * - sessions: partitioned by `started_at`, events by `ts`, both by calendar month in UTC.
 *   The partition key joins the primary keys, which keep `workspace_id` first (migration
 *   0033). A session's events start no earlier than it does, so the events of the sessions
 *   of a month lie in that month's events partition or later ones.
 * - `<table>_YYYY_MM` partitions, made by `create_month_partitions(table, first, last)`:
 *   here for the months that hold data (up to two years back) and two months ahead, and
 *   later by the partitions job (db/partitions.ts). `<table>_default` holds what is older,
 *   or whatever arrives for a month not made yet; making that month moves its rows over.
 * - The rows move as they are: the stats rollups already count them, so the triggers are
 *   made once the rows are in.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`SET LOCAL lock_timeout = 0`.execute(db);
  await sql`LOCK TABLE sessions, events IN ACCESS EXCLUSIVE MODE`.execute(db);

  await sql`
    CREATE FUNCTION create_month_partitions(parent text, first_month date, last_month date)
    RETURNS int LANGUAGE plpgsql AS $$
    DECLARE
      key text := CASE parent WHEN 'sessions' THEN 'started_at' WHEN 'events' THEN 'ts' END;
      month date := date_trunc('month', first_month)::date;
      name text;
      lower_bound timestamptz;
      upper_bound timestamptz;
      made int := 0;
    BEGIN
      IF key IS NULL THEN
        RAISE EXCEPTION 'create_month_partitions: % is not partitioned by month', parent;
      END IF;
      WHILE month <= last_month LOOP
        name := format('%s_%s', parent, to_char(month, 'YYYY_MM'));
        lower_bound := month::timestamp AT TIME ZONE 'UTC';
        upper_bound := (month + interval '1 month')::timestamp AT TIME ZONE 'UTC';
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

  // The same columns, defaults and identity; keys, indexes and triggers come after the rows.
  await sql`
    CREATE TABLE sessions_by_month (LIKE sessions INCLUDING DEFAULTS)
      PARTITION BY RANGE (started_at);
    CREATE TABLE events_by_month (LIKE events INCLUDING DEFAULTS INCLUDING IDENTITY)
      PARTITION BY RANGE (ts);
    CREATE TABLE sessions_default PARTITION OF sessions_by_month DEFAULT;
    CREATE TABLE events_default PARTITION OF events_by_month DEFAULT;
  `.execute(db);
  for (const [table, key] of [
    ['sessions', 'started_at'],
    ['events', 'ts'],
  ] as const) {
    // The partitions are named after the final table, which the function expects.
    const { rows } = await sql<{ first: string | null }>`
      SELECT to_char(CASE WHEN min(${sql.ref(key)}) IS NOT NULL
        THEN greatest(min(${sql.ref(key)}), now() - interval '2 years') END, 'YYYY-MM-DD') AS first
      FROM ${sql.table(table)}`.execute(db);
    const first = rows[0]?.first ?? null;
    await sql`ALTER TABLE ${sql.table(`${table}_by_month`)} RENAME TO ${sql.table(`${table}_new`)}`.execute(
      db,
    );
    await sql`ALTER TABLE ${sql.table(table)} RENAME TO ${sql.table(`${table}_old`)}`.execute(db);
    await sql`ALTER TABLE ${sql.table(`${table}_new`)} RENAME TO ${sql.table(table)}`.execute(db);
    await sql`
      SELECT create_month_partitions(${table},
        coalesce(${first}::date, (now() AT TIME ZONE 'UTC')::date),
        ((now() AT TIME ZONE 'UTC') + interval '2 months')::date)`.execute(db);
  }
  await sql`
    INSERT INTO sessions SELECT * FROM sessions_old;
    INSERT INTO events OVERRIDING SYSTEM VALUE SELECT * FROM events_old;
    SELECT setval(pg_get_serial_sequence('events', 'id'),
      greatest((SELECT max(id) FROM events_old), 1));
    DROP TABLE sessions_old, events_old;
  `.execute(db);

  await sql`
    ALTER TABLE sessions ADD CONSTRAINT sessions_pkey PRIMARY KEY (workspace_id, id, started_at);
    ALTER TABLE sessions ADD CONSTRAINT sessions_workspace_id_fkey
      FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE;
    ALTER TABLE sessions ADD CONSTRAINT sessions_workspace_id_organisation_id_fkey
      FOREIGN KEY (workspace_id, organisation_id) REFERENCES organisations (workspace_id, id)
      ON DELETE SET NULL (organisation_id);
    CREATE INDEX sessions_organisation_idx ON sessions (workspace_id, organisation_id, started_at DESC);
    CREATE INDEX sessions_source_idx ON sessions (workspace_id, source text_pattern_ops, organisation_id);
    CREATE INDEX sessions_started_idx ON sessions (workspace_id, started_at DESC, id);
    CREATE INDEX sessions_unnotified_idx ON sessions (workspace_id, organisation_id)
      WHERE NOT ended_notified;
    CREATE INDEX sessions_visitor_idx ON sessions (workspace_id, visitor_id);
    ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (workspace_id, session_id, id, ts);
  `.execute(db);

  // The triggers of the unpartitioned tables (migrations 0011, 0023, 0030), on the parents:
  // statements on a partitioned table fire them with the rows of every partition touched.
  await sql`
    CREATE TRIGGER stats_sessions_inserted AFTER INSERT ON sessions
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_sessions_inserted();
    CREATE TRIGGER stats_sessions_updated AFTER UPDATE ON sessions
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_sessions_updated();
    CREATE TRIGGER stats_sessions_deleted AFTER DELETE ON sessions
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_sessions_deleted();
    CREATE TRIGGER stats_visitors_inserted AFTER INSERT ON sessions
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_visitors_inserted();
    CREATE TRIGGER stats_visitors_updated AFTER UPDATE ON sessions
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_visitors_updated();
    CREATE TRIGGER stats_visitors_deleted AFTER DELETE ON sessions
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_visitors_deleted();
    CREATE TRIGGER organisation_figures_inserted AFTER INSERT ON sessions
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION organisation_figures_inserted();
    CREATE TRIGGER organisation_figures_updated AFTER UPDATE ON sessions
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION organisation_figures_updated();
    CREATE TRIGGER organisation_figures_deleted AFTER DELETE ON sessions
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION organisation_figures_deleted();
    CREATE TRIGGER events_follow_attribution AFTER UPDATE ON sessions
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION events_follow_attribution();
    CREATE TRIGGER stats_events_inserted AFTER INSERT ON events
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_events_changed();
    CREATE TRIGGER stats_events_updated AFTER UPDATE ON events
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_events_changed();
    CREATE TRIGGER stats_events_deleted AFTER DELETE ON events
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_events_changed();
  `.execute(db);
  await sql`ANALYZE sessions, events`.execute(db);
}
