import { type Kysely, sql } from 'kysely';
import { rewriteFunction } from '../function-text.js';

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
  await rewriteFunction(db, 'organisation_figures_add', ROWS, '', 2);
  await sql`DROP TABLE organisation_visitors`.execute(db);
}
