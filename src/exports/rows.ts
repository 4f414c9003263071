import { type Kysely, sql } from 'kysely';
import { listCustomFields } from '../custom-fields/store.js';
import type { Database } from '../db/schema.js';
import { nameOf, withProfiles } from '../enrich/profile-sql.js';
import { findOrganisationPage, type OrganisationFilters } from '../organisations/list.js';
import { hms, loadOrganisations } from '../organisations/read.js';
import { presentSession } from '../sessions/present.js';
import { loadSessions, type SessionFilters, sessionsWhere } from '../sessions/query.js';
import type { Cell } from './csv.js';

/** Rows are read and written this many at a time: memory stays flat whatever the total. */
export const BATCH = 1000;
const ALL = 2_147_483_647;

const iso = (value: string) => value.replace(/\.\d{3}Z$/, 'Z');

type Link = (organisationId: string) => string;

/**
 * The organisations of a list's filters as CSV rows, header first, in the list's order.
 * Their ids are read at once (about 40 bytes each), their rows a batch at a time.
 */
export async function* organisationRows(
  db: Kysely<Database>,
  filters: OrganisationFilters,
  link: Link,
): AsyncGenerator<Cell[]> {
  const fields = await listCustomFields(db, filters.workspaceId);
  yield [
    'Organisation',
    'Domain',
    'Website',
    'Industry',
    'Size',
    'Country',
    'City',
    'First seen',
    'Last seen',
    'Sessions',
    'Page views',
    'Time on site',
    'Visitors',
    'Tags',
    'Segments',
    'Score',
    'Status',
    'Owner',
    ...fields.map((field) => field.name),
    'Footfall link',
  ];
  const { ids } = await findOrganisationPage(db, filters, { offset: 0, limit: ALL });
  for (let at = 0; at < ids.length; at += BATCH / 2) {
    const batch = ids.slice(at, at + BATCH / 2);
    const [organisations, extra] = await Promise.all([
      loadOrganisations(db, filters.workspaceId, batch),
      sql<{ id: string; domain: string }>`
        SELECT o.id, o.domain FROM organisations o
        WHERE o.workspace_id = ${filters.workspaceId} AND o.id = ANY(${batch}::uuid[])`.execute(db),
    ]);
    const extraOf = new Map(extra.rows.map((row) => [row.id, row]));
    for (const o of organisations) {
      const more = extraOf.get(o.uuid);
      yield [
        o.name,
        more?.domain ?? '',
        o.website,
        o.industry,
        o.size,
        o.address.country,
        o.address.city,
        iso(o.first_seen),
        iso(o.last_seen),
        o.total_sessions,
        o.total_pageviews,
        o.total_time_on_site,
        o.unique_visitor_count,
        o.tags.join('; '),
        o.segments.map((segment) => segment.name).join('; '),
        o.score,
        o.status,
        o.owner?.email ?? '',
        ...fields.map((field) => valueCell(o.custom_fields[field.key])),
        link(o.uuid),
      ];
    }
  }
}

function valueCell(value: unknown): Cell {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return value;
  if (Array.isArray(value)) return value.map(String).join('; ');
  return String(value);
}

/**
 * The sessions of a list's filters as CSV rows, header first, newest first. Read by keyset
 * (`started_at`, id) a batch at a time, each batch its own short query: no connection or
 * snapshot is held while a slow client downloads.
 */
export async function* sessionRows(
  db: Kysely<Database>,
  filters: SessionFilters,
  link: Link,
): AsyncGenerator<Cell[]> {
  yield [
    'Started at',
    'Ended at',
    'Duration',
    'Organisation',
    'Domain',
    'Country',
    'City',
    'Source',
    'Referrer',
    'Landing page',
    'Pages',
    'Page views',
    'Events',
    'Browser',
    'Device',
    'Visitor',
    'Session',
    'Footfall link',
  ];
  const names = new Map<string, { name: string; domain: string }>();
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const position: ReturnType<typeof sql> = after
      ? // The first bound is what the index (workspace_id, started_at DESC, id) starts from;
        // without it every batch would scan past all the rows before it.
        sql`AND s.started_at <= ${after.at}::timestamptz
          AND (s.started_at < ${after.at}::timestamptz OR s.id > ${after.id})`
      : sql``;
    const { rows } = await sql<{ id: string; at: string }>`
      SELECT s.id, s.started_at::text AS at FROM sessions s
      WHERE ${sessionsWhere(filters)} ${position}
      ORDER BY s.started_at DESC, s.id LIMIT ${BATCH}`.execute(db);
    if (rows.length === 0) return;
    const last = rows[rows.length - 1] as { id: string; at: string };
    after = { at: last.at, id: last.id };
    const sessions = await loadSessions(
      db,
      filters.workspaceId,
      rows.map((row) => row.id),
      { from: last.at, to: (rows[0] as { at: string }).at },
    );
    const unknown = [...new Set(sessions.map((s) => s.organisation_id))].filter(
      (id) => !names.has(id),
    );
    if (unknown.length > 0) {
      // Names are kept for the whole export: one entry per organisation, not per session.
      const found = await withProfiles(db, filters.workspaceId)
        .where('o.id', 'in', unknown)
        .execute();
      for (const row of found) names.set(row.id, { name: nameOf(row), domain: row.domain });
    }
    for (const record of sessions) {
      const session = presentSession(record);
      const organisation = names.get(record.organisation_id);
      const seconds = (record.ended_at.getTime() - record.started_at.getTime()) / 1000;
      yield [
        iso(session.started_at),
        iso(session.ended_at),
        hms(seconds),
        organisation?.name ?? '',
        organisation?.domain ?? '',
        session.location.country,
        session.location.city,
        session.source,
        session.referrer,
        session.views[0]?.url ?? '',
        session.views.map((view) => view.url).join('\n'),
        session.views.length,
        session.events.filter((event) => event.event_type !== 'pageview').length,
        session.browser,
        session.device_type,
        session.visitor_uuid,
        session.uuid,
        link(record.organisation_id),
      ];
    }
    if (rows.length < BATCH) return;
  }
}
