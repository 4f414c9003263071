import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { type SessionState, sessionize, type VisitEvent } from './sessionizer.js';

/**
 * Writes a group of events in one transaction: each visitor's events are put into sessions
 * (holding a per-visitor lock, so concurrent writers cannot split one visit into two
 * sessions), then sessions are upserted and events inserted, each in one statement.
 */
export async function storeEvents(
  db: Kysely<Database>,
  items: VisitEvent[],
  idleMs: number,
): Promise<void> {
  const byVisitor = new Map<string, VisitEvent[]>();
  for (const item of items) {
    const key = `${item.visit.workspaceId} ${item.visit.visitorId}`;
    const list = byVisitor.get(key);
    if (list) list.push(item);
    else byVisitor.set(key, [item]);
  }
  await db.transaction().execute(async (trx) => {
    const visitors = [...byVisitor.keys()].sort();
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
              FROM unnest(${visitors}::text[]) WITH ORDINALITY AS v(k, n) ORDER BY n`.execute(trx);
    const latest = await latestSessions(trx, visitors);
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
    await upsertSessions(trx, sessions);
    await insertEvents(trx, eventRows);
  });
}

async function latestSessions(trx: Transaction<Database>, visitors: string[]) {
  const split = visitors.map((key) => key.split(' ') as [string, string]);
  const { rows } = await sql<{
    id: string;
    workspace_id: string;
    visitor_id: string;
    organisation_id: string | null;
    started_at: Date;
    ended_at: Date;
    referrer: string;
    referrer_at: Date | null;
    country: string;
    state: string;
    city: string;
    latitude: number;
    longitude: number;
    browser: string;
    device_type: string;
  }>`
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
      },
    ]),
  );
}

async function upsertSessions(trx: Transaction<Database>, sessions: SessionState[]) {
  const column = <T>(pick: (s: SessionState) => T) => sessions.map(pick);
  await sql`
    INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
      referrer, referrer_at, country, state, city, latitude, longitude, browser, device_type)
    SELECT * FROM unnest(
      ${column((s) => s.workspaceId)}::uuid[], ${column((s) => s.id)}::uuid[],
      ${column((s) => s.visitorId)}::uuid[], ${column((s) => s.organisationId)}::uuid[],
      ${column((s) => s.startedAt.toISOString())}::timestamptz[],
      ${column((s) => s.endedAt.toISOString())}::timestamptz[],
      ${column((s) => s.referrer)}::text[],
      ${column((s) => s.referrerAt?.toISOString() ?? null)}::timestamptz[],
      ${column((s) => s.location.country)}::text[], ${column((s) => s.location.state)}::text[],
      ${column((s) => s.location.city)}::text[],
      ${column((s) => s.location.latitude)}::float8[], ${column((s) => s.location.longitude)}::float8[],
      ${column((s) => s.browser)}::text[], ${column((s) => s.deviceType)}::text[])
    -- The visitor's lock is held and its latest session was read under it, so the state
    -- computed here is the whole truth about the session.
    ON CONFLICT (workspace_id, id) DO UPDATE SET
      started_at = excluded.started_at,
      ended_at = excluded.ended_at,
      organisation_id = excluded.organisation_id,
      referrer = excluded.referrer,
      referrer_at = excluded.referrer_at`.execute(trx);
}

async function insertEvents(
  trx: Transaction<Database>,
  rows: { item: VisitEvent; sessionId: string }[],
) {
  await sql`
    INSERT INTO events (workspace_id, session_id, type, ts, url, data)
    SELECT * FROM unnest(
      ${rows.map((r) => r.item.visit.workspaceId)}::uuid[],
      ${rows.map((r) => r.sessionId)}::uuid[],
      ${rows.map((r) => r.item.event.type)}::text[],
      ${rows.map((r) => r.item.event.ts.toISOString())}::timestamptz[],
      ${rows.map((r) => r.item.event.url)}::text[],
      ${rows.map((r) => JSON.stringify(r.item.event.data))}::jsonb[])`.execute(trx);
}
