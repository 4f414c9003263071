import { type Kysely, sql } from 'kysely';

/**
 * An organisation's unique visitors are counted from its sessions; `organisation_visitors`
 * goes (issue "storage at scale").
 *
 * Migration 0026 kept, for each organisation and visitor, the number of their ended
 * sessions, so that a session going away took a visitor away only with its last one. The
 * table held one row per organisation and visitor of the whole history (1.7 GB on the
 * year-of-traffic bench), and every path that ends, moves or deletes a session wrote it.
 * Retention spent the most time of its month there: subtracting a month's sessions took
 * 17.9 s of 91 s, and no month partition could be dropped in its place, since a row counts
 * sessions of every month.
 *
 * The index by organisation carries each session's visitor since migration 0041, so the
 * count is an index-only read of the organisation's sessions, ended or not
 * (src/sessions/organisation-figures.ts): the organisations list reads it for a page of 25.
 *
 * `organisation_figures_add` keeps its arguments (the sessions triggers pass a visitor per
 * session); it no longer reads them.
 */
const ROWS =
  /\s*INSERT INTO organisation_visitors AS t[^;]*;|\s*DELETE FROM organisation_visitors t[^;]*;/g;

export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ definition: string }>`
    SELECT pg_get_functiondef('organisation_figures_add'::regproc) AS definition`.execute(db);
  const definition = rows[0]?.definition ?? '';
  const found = definition.match(ROWS)?.length ?? 0;
  if (found !== 2) {
    throw new Error(`organisation_figures_add: expected 2 statements on visitors, found ${found}`);
  }
  await sql.raw(definition.replace(ROWS, '')).execute(db);
  await sql`DROP TABLE organisation_visitors`.execute(db);
}
