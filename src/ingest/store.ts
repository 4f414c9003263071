import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { type ContactSighting, recordContacts } from '../contacts/store.js';
import type { Database, SessionTable } from '../db/schema.js';
import { recordIdentifications } from '../identify/identity.js';
import { queueForSegments } from '../segments/membership.js';
import { type SessionState, sessionize, type VisitEvent } from './sessionizer.js';

type Connection = Kysely<Database>;

/** Who the group's visitors said they are: identified organisations and contacts. */
export interface People {
  identified?: Parameters<typeof recordIdentifications>[1];
  contacts?: ContactSighting[];
}

/**
 * Writes a group of events in one transaction: each visitor's events are put into sessions
 * (holding a per-visitor lock, so concurrent writers cannot split one visit into two
 * sessions), then sessions are upserted and events inserted in one statement. Three round
 * trips in all, which is what bounds the collector's throughput (docs/performance.md).
 */
export async function storeEvents(
  db: Kysely<Database>,
  items: VisitEvent[],
  idleMs: number,
  people: People = {},
  /** False when no workspace of the group has webhook delivery on: the outbox is skipped. */
  webhooks = true,
): Promise<void> {
  const byVisitor = new Map<string, VisitEvent[]>();
  for (const item of items) {
    const key = `${item.visit.workspaceId} ${item.visit.visitorId}`;
    const list = byVisitor.get(key);
    if (list) list.push(item);
    else byVisitor.set(key, [item]);
  }
  await db.connection().execute(async (trx) => {
    try {
      await writeGroup(trx, byVisitor, idleMs, people, webhooks);
    } catch (error) {
      // The write's own error is the one to report; a failed rollback ends with the connection.
      await sql`ROLLBACK`.execute(trx).catch(() => {});
      throw error;
    }
  });
}

async function writeGroup(
  trx: Connection,
  byVisitor: Map<string, VisitEvent[]>,
  idleMs: number,
  people: People,
  webhooks: boolean,
) {
  const latest = await lockVisitors(trx, [...byVisitor.keys()]);
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
  const known = new Set([...latest.values()].map((session) => session.id));
  await writeSessionsAndEvents(trx, sessions, eventRows, webhooks ? known : null);
  await recordIdentifications(trx, people.identified ?? []);
  await recordContacts(trx, people.contacts ?? []);
  await sql`COMMIT`.execute(trx);
}

/** A visitor's lock key: 60 bits of its (random) visitor id mixed with its workspace's. */
function lockKey(visitorKey: string): bigint {
  const [workspaceId = '', visitorId = ''] = visitorKey.split(' ');
  const bits = (uuid: string) => BigInt(`0x${uuid.replaceAll('-', '').slice(0, 15)}`);
  return bits(workspaceId) ^ bits(visitorId);
}

/**
 * Opens the transaction and takes each visitor's advisory lock in the same round trip (in
 * ascending order, so writers never deadlock), then reads each visitor's latest session.
 * The read is a statement of its own on purpose: a statement's snapshot is taken when it
 * starts, so a read in the locking statement could miss a session committed by the writer
 * it waited for.
 */
async function lockVisitors(trx: Connection, visitors: string[]) {
  const keys = [...new Set(visitors.map(lockKey))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // Numbers only, made here: safe to inline, and a parameterless query may hold two statements.
  await sql
    .raw(`BEGIN; SELECT ${keys.map((key) => `pg_advisory_xact_lock(${key})`).join(', ')}`)
    .execute(trx);
  const split = visitors.map((key) => key.split(' ') as [string, string]);
  const { rows } = await sql<Selectable<SessionTable>>`
    SELECT DISTINCT ON (s.workspace_id, s.visitor_id) s.*
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
 * Upserts the sessions and inserts the events in one statement. With `known` (the ids of
 * the sessions that existed before), the statement also fills the webhook outbox:
 * `organisation.returned` for a new session of an organisation seen before, and
 * `event.tracked` per listed event for operators in event mode.
 */
async function writeSessionsAndEvents(
  trx: Connection,
  sessions: SessionState[],
  rows: { item: VisitEvent; sessionId: string }[],
  known: Set<string> | null,
) {
  const column = <T>(pick: (s: SessionState) => T) => sessions.map(pick);
  const upsertSessions = sql`
    INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
      referrer, referrer_at, country, state, city, latitude, longitude, browser, device_type,
      pageviews)
    SELECT * FROM unnest(
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
      ${column((s) => s.pageviews)}::int[])
    -- The visitor's lock is held and its latest session was read under it, so the state
    -- computed here is the whole truth about the session.
    ON CONFLICT (workspace_id, id) DO UPDATE SET
      started_at = excluded.started_at,
      ended_at = excluded.ended_at,
      organisation_id = excluded.organisation_id,
      referrer = excluded.referrer,
      referrer_at = excluded.referrer_at,
      pageviews = excluded.pageviews`;
  const insertEvents = sql`
    INSERT INTO events (workspace_id, session_id, type, ts, url, data)
    SELECT * FROM unnest(
      ${rows.map((r) => r.item.visit.workspaceId)}::uuid[],
      ${rows.map((r) => r.sessionId)}::uuid[],
      ${rows.map((r) => r.item.event.type)}::text[],
      ${rows.map((r) => r.item.event.ts.toISOString())}::timestamptz[],
      ${rows.map((r) => r.item.event.url)}::text[],
      ${rows.map((r) => JSON.stringify(r.item.event.data))}::jsonb[])`;
  const attributed = sessions.filter((session) => session.organisationId !== null);
  // Their organisations' figures changed: their segments are evaluated again (segments/).
  const queued = sql`queued AS (${queueForSegments(sql`
    SELECT * FROM unnest(${attributed.map((s) => s.workspaceId)}::uuid[],
      ${attributed.map((s) => s.organisationId)}::uuid[]) AS a(workspace_id, organisation_id)`)})`;
  if (!known) {
    await sql`WITH upserted AS (${upsertSessions}), ${queued} ${insertEvents}`.execute(trx);
    return;
  }
  const fresh = attributed.filter((session) => !known.has(session.id));
  await sql`
    WITH upserted AS (${upsertSessions}), ${queued},
    inserted AS (${insertEvents} RETURNING workspace_id, session_id, id, type),
    attributed AS (
      SELECT * FROM unnest(${attributed.map((s) => s.workspaceId)}::uuid[],
        ${attributed.map((s) => s.id)}::uuid[], ${attributed.map((s) => s.organisationId)}::uuid[])
        AS a(workspace_id, session_id, organisation_id)
    ), returned AS (
      -- The snapshot of this statement holds only earlier sessions: exactly "seen before".
      INSERT INTO webhook_deliveries (id, operator_id, workspace_id, event, organisation_id, session_id)
      SELECT gen_random_uuid(), w.operator_id, f.workspace_id, 'organisation.returned',
             f.organisation_id, f.session_id
      FROM unnest(${fresh.map((s) => s.workspaceId)}::uuid[], ${fresh.map((s) => s.id)}::uuid[],
                  ${fresh.map((s) => s.organisationId)}::uuid[]) AS f(workspace_id, session_id, organisation_id)
      JOIN workspaces w ON w.id = f.workspace_id
      JOIN webhook_configs c ON c.operator_id = w.operator_id AND c.url IS NOT NULL
      WHERE EXISTS (SELECT 1 FROM sessions s WHERE s.workspace_id = f.workspace_id
                    AND s.organisation_id = f.organisation_id AND s.id <> f.session_id)
    )
    INSERT INTO webhook_deliveries (id, operator_id, workspace_id, event, organisation_id, session_id, event_id)
    SELECT gen_random_uuid(), w.operator_id, i.workspace_id, 'event.tracked', a.organisation_id,
           i.session_id, i.id
    FROM inserted i
    JOIN attributed a ON a.workspace_id = i.workspace_id AND a.session_id = i.session_id
    JOIN workspaces w ON w.id = i.workspace_id
    JOIN webhook_configs c ON c.operator_id = w.operator_id AND c.url IS NOT NULL AND c.mode = 'event'
    WHERE i.type IN ('pageview', 'form_submit', 'form_abandon', 'click', 'download', 'custom')`.execute(
    trx,
  );
}
