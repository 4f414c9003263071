import { type Kysely, sql } from 'kysely';

/**
 * Rollups of the daily rollups, for stats over long ranges (issue "storage at scale").
 *
 * Stats over 365 days summed every organisation's every day of the year (about 2.2 million
 * rows for the largest workspace of the year benchmark: 2.5 s) and every page's every day.
 * Three tables are kept from the daily ones:
 * - stats_workspace_days: a workspace's day, its sessions, page views and organisations (the
 *   number of its rows in stats_organisation_days), the chart of any range;
 * - stats_organisation_months: an organisation's month, for the whole months of a range;
 * - stats_page_months: a page's month, likewise.
 * Each row also counts the daily rows under it (`days`, `organisations`) and goes when that
 * count reaches 0, as the daily row goes when it counts nothing.
 *
 * They are kept by statement-level triggers on the daily tables themselves, from their
 * transition tables: whatever changes a daily row (the writer's sums at its commit, the
 * triggers of every other path, retention's deletes of a whole month, a workspace's purge)
 * changes the rows above it in the same statement, so they are always the daily rows' sums
 * (test/stats/writer-rollups.test.ts recounts them after every path). Their upserts go in
 * key order, after the daily table's, as every path takes them.
 *
 * Retention, which takes a whole month out of the daily rollups, turns the triggers off for
 * that delete (`footfall.month_rollups = 'off'`, in its transaction) and deletes the
 * month's rows above them itself: subtracting a month's daily rows one by one from the rows
 * that sum them took 5 times as long as the rest of retention.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE stats_workspace_days (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      day date NOT NULL,
      sessions bigint NOT NULL,
      pageviews bigint NOT NULL,
      organisations integer NOT NULL,
      PRIMARY KEY (workspace_id, day)
    );
    CREATE TABLE stats_organisation_months (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      month date NOT NULL,
      organisation_id uuid NOT NULL,
      sessions bigint NOT NULL,
      pageviews bigint NOT NULL,
      days integer NOT NULL,
      PRIMARY KEY (workspace_id, month, organisation_id)
    );
    CREATE TABLE stats_page_months (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      month date NOT NULL,
      url text NOT NULL,
      pageviews bigint NOT NULL,
      attributed_pageviews bigint NOT NULL,
      days integer NOT NULL,
      PRIMARY KEY (workspace_id, month, url)
    );

    -- Adds changes of stats_organisation_days rows (rows: +1 a row made, -1 a row gone). A
    -- workspace being deleted (its rows going by cascade) is skipped.
    CREATE FUNCTION stats_roll_organisation_days(
      workspaces uuid[], dates date[], organisation_ids uuid[], session_counts bigint[],
      pageview_counts bigint[], row_counts integer[]
    ) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO stats_organisation_months AS t
        (workspace_id, month, organisation_id, sessions, pageviews, days)
      SELECT workspace_id, date_trunc('month', day)::date, organisation_id, sum(s), sum(p),
        sum(n)
      FROM unnest(workspaces, dates, organisation_ids, session_counts, pageview_counts, row_counts)
        AS d(workspace_id, day, organisation_id, s, p, n)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (workspace_id, month, organisation_id) DO UPDATE
        SET sessions = t.sessions + excluded.sessions,
          pageviews = t.pageviews + excluded.pageviews, days = t.days + excluded.days;
      INSERT INTO stats_workspace_days AS t
        (workspace_id, day, sessions, pageviews, organisations)
      SELECT workspace_id, day, sum(s), sum(p), sum(n)
      FROM unnest(workspaces, dates, session_counts, pageview_counts, row_counts)
        AS d(workspace_id, day, s, p, n)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (workspace_id, day) DO UPDATE
        SET sessions = t.sessions + excluded.sessions,
          pageviews = t.pageviews + excluded.pageviews,
          organisations = t.organisations + excluded.organisations;
      IF NOT EXISTS (SELECT 1 FROM unnest(row_counts) c WHERE c < 0) THEN
        RETURN;
      END IF;
      -- By key, one index lookup each (migration 0035).
      DELETE FROM stats_organisation_months t
        WHERE t.ctid = ANY (ARRAY(
          SELECT x.ctid FROM (SELECT DISTINCT workspace_id, date_trunc('month', day)::date AS month,
              organisation_id
            FROM unnest(workspaces, dates, organisation_ids, row_counts)
              AS d(workspace_id, day, organisation_id, n) WHERE n < 0) d
          CROSS JOIN LATERAL (SELECT t.ctid FROM stats_organisation_months t
            WHERE t.workspace_id = d.workspace_id AND t.month = d.month
              AND t.organisation_id = d.organisation_id AND t.days <= 0) x));
      DELETE FROM stats_workspace_days t
        WHERE t.ctid = ANY (ARRAY(
          SELECT x.ctid FROM (SELECT DISTINCT workspace_id, day
            FROM unnest(workspaces, dates, row_counts) AS d(workspace_id, day, n) WHERE n < 0) d
          CROSS JOIN LATERAL (SELECT t.ctid FROM stats_workspace_days t
            WHERE t.workspace_id = d.workspace_id AND t.day = d.day
              AND t.organisations <= 0) x));
    END $$;

    ${sql.raw(triggersOf('stats_organisation_days', 'organisation_id', ['sessions', 'pageviews']))}

    -- Adds changes of stats_page_days rows, as above.
    CREATE FUNCTION stats_roll_page_days(
      workspaces uuid[], dates date[], urls text[], counts bigint[], attributed_counts bigint[],
      row_counts integer[]
    ) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO stats_page_months AS t
        (workspace_id, month, url, pageviews, attributed_pageviews, days)
      SELECT workspace_id, date_trunc('month', day)::date, url, sum(c), sum(a), sum(n)
      FROM unnest(workspaces, dates, urls, counts, attributed_counts, row_counts)
        AS d(workspace_id, day, url, c, a, n)
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id)
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (workspace_id, month, url) DO UPDATE
        SET pageviews = t.pageviews + excluded.pageviews,
          attributed_pageviews = t.attributed_pageviews + excluded.attributed_pageviews,
          days = t.days + excluded.days;
      IF NOT EXISTS (SELECT 1 FROM unnest(row_counts) c WHERE c < 0) THEN
        RETURN;
      END IF;
      DELETE FROM stats_page_months t
        WHERE t.ctid = ANY (ARRAY(
          SELECT x.ctid FROM (SELECT DISTINCT workspace_id, date_trunc('month', day)::date AS month,
              url
            FROM unnest(workspaces, dates, urls, row_counts) AS d(workspace_id, day, url, n)
            WHERE n < 0) d
          CROSS JOIN LATERAL (SELECT t.ctid FROM stats_page_months t
            WHERE t.workspace_id = d.workspace_id AND t.month = d.month AND t.url = d.url
              AND t.days <= 0) x));
    END $$;

    ${sql.raw(triggersOf('stats_page_days', 'url', ['pageviews', 'attributed_pageviews']))}

    -- What is there already.
    INSERT INTO stats_workspace_days (workspace_id, day, sessions, pageviews, organisations)
    SELECT workspace_id, day, sum(sessions), sum(pageviews), count(*)
    FROM stats_organisation_days GROUP BY 1, 2;
    INSERT INTO stats_organisation_months
      (workspace_id, month, organisation_id, sessions, pageviews, days)
    SELECT workspace_id, date_trunc('month', day)::date, organisation_id, sum(sessions),
      sum(pageviews), count(*)
    FROM stats_organisation_days GROUP BY 1, 2, 3;
    INSERT INTO stats_page_months (workspace_id, month, url, pageviews, attributed_pageviews, days)
    SELECT workspace_id, date_trunc('month', day)::date, url, sum(pageviews),
      sum(attributed_pageviews), count(*)
    FROM stats_page_days GROUP BY 1, 2, 3;
    ANALYZE stats_workspace_days, stats_organisation_months, stats_page_months;
  `.execute(db);
}

/**
 * The statement-level triggers of a daily rollup `table` (its key: workspace_id, day and
 * `key`), which hand each statement's changes of its two counts to `stats_roll_<table>`:
 * rows made (+1), rows changed (the difference, 0), rows gone (-1).
 */
function triggersOf(table: string, key: string, [a, b]: [string, string]): string {
  const roll = (x: string, y: string, n: string) =>
    `PERFORM stats_roll_${table.replace('stats_', '')}(array_agg(workspace_id), array_agg(day),
        array_agg(${key}), array_agg(${x}), array_agg(${y}), array_agg(${n}))`;
  const body = (name: string, statement: string) => `
    CREATE FUNCTION ${table}_${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('footfall.month_rollups', true) = 'off' THEN RETURN NULL; END IF;
      ${statement};
      RETURN NULL;
    END $$;`;
  const trigger = (name: string, event: string, tables: string) => `
    CREATE TRIGGER ${table}_${name} AFTER ${event} ON ${table}
      REFERENCING ${tables}
      FOR EACH STATEMENT EXECUTE FUNCTION ${table}_${name}();`;
  return [
    body(
      'inserted',
      `${roll(`${a}::bigint`, `${b}::bigint`, '1')} FROM new_rows HAVING count(*) > 0`,
    ),
    body(
      'updated',
      `${roll('x', 'y', '0')}
      FROM (SELECT workspace_id, day, ${key}, sum(x)::bigint AS x, sum(y)::bigint AS y
            FROM (SELECT workspace_id, day, ${key}, ${a} AS x, ${b} AS y FROM new_rows
                  UNION ALL
                  SELECT workspace_id, day, ${key}, -${a}, -${b} FROM old_rows) c
            GROUP BY 1, 2, 3 HAVING sum(x) <> 0 OR sum(y) <> 0) d
      HAVING count(*) > 0`,
    ),
    body(
      'deleted',
      `${roll(`-${a}::bigint`, `-${b}::bigint`, '-1')} FROM old_rows HAVING count(*) > 0`,
    ),
    trigger('inserted', 'INSERT', 'NEW TABLE AS new_rows'),
    trigger('updated', 'UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'),
    trigger('deleted', 'DELETE', 'OLD TABLE AS old_rows'),
  ].join('\n');
}
