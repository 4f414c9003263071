import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { TRACKED_EVENT_TYPES } from '../db/event-types.js';
import { PREPARED } from '../db/prepared.js';
import type { Database, SessionTable } from '../db/schema.js';
import { inTransaction, type Transaction } from '../db/transaction.js';
import type { DomainEvent, Interest } from '../outbox/events.js';
import { queueForSegments } from '../outbox/segment-queue.js';
import { type SessionState, sessionize, type VisitEvent } from './sessionizer.js';

type Connection = Kysely<Database>;

/**
 * The most page views a session's row keeps the URLs of (migration 0041): every write of a
 * session rewrites its row, so a longer session's are read from its events instead.
 */
export const SESSION_PAGES_KEPT = 100;

/**
 * Puts a group's events into sessions and writes both, inside the caller's transaction:
 * each visitor's lock is taken (so concurrent writers cannot split one visit into two
 * sessions), the visitors' latest sessions are read, and sessions are upserted and events
 * inserted in one statement. Three round trips, which is what bounds the collector's
 * throughput (docs/performance.md). For workspaces whose subscribers want events
 * (`interested`), it answers the domain events the write causes, for the outbox:
 * `organisation.returned` for a new session of an organisation seen before, and
 * `event.tracked` per listed event when they want every event.
 */
export async function storeVisits(
  tx: Transaction<Database>,
  items: VisitEvent[],
  idleMs: number,
  interested: ReadonlyMap<string, Interest> = new Map(),
): Promise<DomainEvent[]> {
  const byVisitor = new Map<string, VisitEvent[]>();
  for (const item of items) {
    const key = `${item.visit.workspaceId} ${item.visit.visitorId}`;
    const list = byVisitor.get(key);
    if (list) list.push(item);
    else byVisitor.set(key, [item]);
  }
  const visitors = [...byVisitor.keys()];
  await tx.lock(visitorLocks(visitors));
  const db = await tx.db();
  const latest = await latestSessions(db, visitors);
  const sessions: SessionState[] = [];
  const eventRows: { item: VisitEvent; sessionId: string }[] = [];
  for (const [key, list] of byVisitor) {
    list.sort((a, b) => a.event.ts.getTime() - b.event.ts.getTime());
    const result = sessionize(latest.get(key), list, idleMs, randomUUID);
    sessions.push(...result.sessions);
    list.forEach((item, index) => {
      eventRows.push({ item, sessionId: result.sessionIds[index] as string });
    });
  }
  // Each stored session's start as read: its partition (sessionize changes a copy).
  const known = new Map([...latest.values()].map((session) => [session.id, session.startedAt]));
  return writeSessionsAndEvents(db, sessions, eventRows, known, interested);
}

/** Writes prepared visit events in a transaction of their own (demo data). */
export async function storeEvents(
  db: Kysely<Database>,
  items: VisitEvent[],
  idleMs: number,
): Promise<void> {
  await inTransaction(db, (tx) => storeVisits(tx, items, idleMs));
}

/** A visitor's lock key: 60 bits of its (random) visitor id mixed with its workspace's. */
function lockKey(visitorKey: string): bigint {
  const [workspaceId = '', visitorId = ''] = visitorKey.split(' ');
  const bits = (uuid: string) => BigInt(`0x${uuid.replaceAll('-', '').slice(0, 15)}`);
  return bits(workspaceId) ^ bits(visitorId);
}

/**
 * The visitors' advisory locks, in ascending order so writers never deadlock: SQL of
 * numbers made here, for Transaction.lock.
 */
export function visitorLocks(visitors: string[]): string {
  const keys = [...new Set(visitors.map(lockKey))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `SELECT ${keys.map((key) => `pg_advisory_xact_lock(${key})`).join(', ')}`;
}

/**
 * Each visitor's latest session, read under the visitors' locks. The read is a statement
 * of its own on purpose: a statement's snapshot is taken when it starts, so a read in the
 * locking statement could miss a session committed by the writer it waited for.
 */
async function latestSessions(trx: Connection, visitors: string[]) {
  const split = visitors.map((key) => key.split(' ') as [string, string]);
  const { rows } = await sql<Omit<Selectable<SessionTable>, 'ended_notified' | 'pages'>>`${PREPARED}
    SELECT DISTINCT ON (s.workspace_id, s.visitor_id) s.workspace_id, s.visitor_id, s.id,
      s.started_at, s.ended_at, s.organisation_id, s.referrer, s.referrer_at, s.source,
      s.country, s.state, s.city, s.latitude, s.longitude, s.browser, s.device_type, s.pageviews
    FROM sessions s
    JOIN unnest(${split.map(([w]) => w)}::uuid[], ${split.map(([, v]) => v)}::uuid[])
      AS k(workspace_id, visitor_id) USING (workspace_id, visitor_id)
    ORDER BY s.workspace_id, s.visitor_id, s.ended_at DESC`.execute(trx);
  return new Map<string, SessionState>(
    rows.map((row) => [
      `${row.workspace_id} ${row.visitor_id}`,
      {
        id: row.id,
        workspaceId: row.workspace_id,
        visitorId: row.visitor_id,
        startedAt: row.started_at,
        endedAt: row.ended_at,
        organisationId: row.organisation_id,
        referrer: row.referrer,
        referrerAt: row.referrer_at,
        source: row.source,
        location: {
          country: row.country,
          state: row.state,
          city: row.city,
          latitude: row.latitude,
          longitude: row.longitude,
        },
        browser: row.browser,
        deviceType: row.device_type,
        pageviews: row.pageviews,
      },
    ]),
  );
}

/**
 * Upserts the sessions and inserts the events in one statement. For the workspaces in
 * `interested`, the statement also answers the events they cause (see storeVisits).
 */
async function writeSessionsAndEvents(
  trx: Connection,
  sessions: SessionState[],
  rows: { item: VisitEvent; sessionId: string }[],
  known: ReadonlyMap<string, Date>,
  interested: ReadonlyMap<string, Interest>,
): Promise<DomainEvent[]> {
  // New sessions are inserted; the visitors' latest sessions, read under their locks, are
  // updated where they are stored: the month partition of the start read (migration 0034),
  // which the update leaves when an earlier event moves the start into another month.
  const added = sessions.filter((session) => !known.has(session.id));
  const changed = sessions.filter((session) => known.has(session.id));
  const column = <T>(pick: (s: SessionState) => T) => added.map(pick);
  // The batch's page views of each session, which its row keeps too (migration 0041): a new
  // session's, unless there are more than a row keeps; a stored one's, added to what it has.
  const viewed = new Map<string, string[]>();
  for (const { item, sessionId } of rows) {
    if (item.event.type !== 'pageview') continue;
    const urls = viewed.get(sessionId);
    if (urls) urls.push(item.event.url);
    else viewed.set(sessionId, [item.event.url]);
  }
  const pagesOf = (session: SessionState) => JSON.stringify(viewed.get(session.id) ?? []);
  const upsertSessions = sql`
    INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
      referrer, referrer_at, country, state, city, latitude, longitude, browser, device_type,
      pageviews, source, pages)
    SELECT workspace_id, id, visitor_id, organisation_id, started_at, ended_at, referrer,
      referrer_at, country, state, city, latitude, longitude, browser, device_type, pageviews,
      source, CASE WHEN jsonb_array_length(pages) <= ${SESSION_PAGES_KEPT}
        THEN ARRAY(SELECT jsonb_array_elements_text(pages)) END
    FROM unnest(
      ${column((s) => s.workspaceId)}::uuid[], ${column((s) => s.id)}::uuid[],
      ${column((s) => s.visitorId)}::uuid[], ${column((s) => s.organisationId)}::uuid[],
      ${column((s) => s.startedAt.toISOString())}::timestamptz[],
      ${column((s) => s.endedAt.toISOString())}::timestamptz[],
      ${column((s) => s.referrer)}::text[],
      ${column((s) => s.referrerAt?.toISOString() ?? null)}::timestamptz[],
      ${column((s) => s.location.country)}::text[], ${column((s) => s.location.state)}::text[],
      ${column((s) => s.location.city)}::text[],
      ${column((s) => s.location.latitude)}::float8[],
      ${column((s) => s.location.longitude)}::float8[],
      ${column((s) => s.browser)}::text[], ${column((s) => s.deviceType)}::text[],
      ${column((s) => s.pageviews)}::int[], ${column((s) => s.source)}::text[],
      ${column(pagesOf)}::jsonb[])
      AS n(workspace_id, id, visitor_id, organisation_id, started_at, ended_at, referrer,
           referrer_at, country, state, city, latitude, longitude, browser, device_type,
           pageviews, source, pages)),
    updated AS (
    -- The visitor's lock is held and its latest session was read under it, so the state
    -- computed here is the whole truth about the session.
    UPDATE sessions s SET
      started_at = u.started_at,
      ended_at = u.ended_at,
      organisation_id = u.organisation_id,
      referrer = u.referrer,
      referrer_at = u.referrer_at,
      source = u.source,
      pageviews = u.pageviews,
      pages = CASE WHEN cardinality(s.pages) + jsonb_array_length(u.pages) <= ${SESSION_PAGES_KEPT}
        THEN s.pages || ARRAY(SELECT jsonb_array_elements_text(u.pages)) END
    FROM unnest(
      ${changed.map((s) => s.workspaceId)}::uuid[], ${changed.map((s) => s.id)}::uuid[],
      ${changed.map((s) => (known.get(s.id) as Date).toISOString())}::timestamptz[],
      ${changed.map((s) => s.startedAt.toISOString())}::timestamptz[],
      ${changed.map((s) => s.endedAt.toISOString())}::timestamptz[],
      ${changed.map((s) => s.organisationId)}::uuid[],
      ${changed.map((s) => s.referrer)}::text[],
      ${changed.map((s) => s.referrerAt?.toISOString() ?? null)}::timestamptz[],
      ${changed.map((s) => s.source)}::text[], ${changed.map((s) => s.pageviews)}::int[],
      ${changed.map(pagesOf)}::jsonb[])
      AS u(workspace_id, id, stored_start, started_at, ended_at, organisation_id, referrer,
           referrer_at, source, pageviews, pages)
    WHERE s.workspace_id = u.workspace_id AND s.id = u.id AND s.started_at = u.stored_start
    RETURNING 1`;
  // Each event carries its session's attribution as this statement leaves it (the stats
  // triggers count top pages by it; migration 0023 says why it cannot be read from the session).
  const attributed = sessions.filter((session) => session.organisationId !== null);
  const attributedIds = new Set(attributed.map((session) => session.id));
  const insertEvents = sql`
    INSERT INTO events (workspace_id, session_id, type, ts, url, data, attributed)
    SELECT * FROM unnest(
      ${rows.map((r) => r.item.visit.workspaceId)}::uuid[],
      ${rows.map((r) => r.sessionId)}::uuid[],
      ${rows.map((r) => r.item.event.type)}::text[],
      ${rows.map((r) => r.item.event.ts.toISOString())}::timestamptz[],
      ${rows.map((r) => r.item.event.url)}::text[],
      ${rows.map((r) => JSON.stringify(r.item.event.data))}::jsonb[],
      ${rows.map((r) => attributedIds.has(r.sessionId))}::boolean[])
    -- Every stored session it updates still there (migration 0036), or the batch again.
    WHERE (SELECT sessions_written(count(*), ${changed.length}) FROM updated)`;
  // Their organisations' figures changed: their segments are evaluated again (segments/).
  const queued = sql`queued AS (${queueForSegments(sql`
    SELECT * FROM unnest(${attributed.map((s) => s.workspaceId)}::uuid[],
      ${attributed.map((s) => s.organisationId)}::uuid[]) AS a(workspace_id, organisation_id)`)})`;
  const fresh = attributed.filter(
    (session) => !known.has(session.id) && interested.has(session.workspaceId),
  );
  const tracked = attributed.filter((session) => interested.get(session.workspaceId) === 'event');
  if (fresh.length === 0 && tracked.length === 0) {
    await sql`${PREPARED}WITH upserted AS (${upsertSessions}), ${queued} ${insertEvents}`.execute(
      trx,
    );
    return [];
  }
  const { rows: caused } = await sql<DomainEvent>`${PREPARED}
    WITH upserted AS (${upsertSessions}), ${queued},
    inserted AS (${insertEvents} RETURNING workspace_id, session_id, id, type)
    SELECT 'event.tracked' AS kind, i.workspace_id AS "workspaceId",
           a.organisation_id AS "organisationId", i.session_id AS "sessionId", i.id AS "eventId"
    FROM inserted i
    JOIN unnest(${tracked.map((s) => s.workspaceId)}::uuid[], ${tracked.map((s) => s.id)}::uuid[],
                ${tracked.map((s) => s.organisationId)}::uuid[])
      AS a(workspace_id, session_id, organisation_id) USING (workspace_id, session_id)
    WHERE i.type = ANY(${[...TRACKED_EVENT_TYPES]}::text[])
    UNION ALL
    -- The snapshot of this statement holds only earlier sessions: exactly "seen before".
    SELECT 'organisation.returned', f.workspace_id, f.organisation_id, f.session_id, NULL
    FROM unnest(${fresh.map((s) => s.workspaceId)}::uuid[], ${fresh.map((s) => s.id)}::uuid[],
                ${fresh.map((s) => s.organisationId)}::uuid[]) AS f(workspace_id, session_id, organisation_id)
    WHERE EXISTS (SELECT 1 FROM sessions s WHERE s.workspace_id = f.workspace_id
                  AND s.organisation_id = f.organisation_id AND s.id <> f.session_id)`.execute(trx);
  return caused;
}
