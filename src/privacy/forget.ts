import { type Kysely, sql } from 'kysely';
import { affectedRows } from '../db/affected.js';
import { againIfTransient } from '../db/failures.js';
import { likeContaining } from '../db/like.js';
import type { Database } from '../db/schema.js';
import { isEmailAddress } from '../http/email-address.js';
import { forgetDeliveries } from '../outbox/deliveries.js';
import { markSegmentsStale } from '../outbox/segment-queue.js';

/** Who to forget: everything known under this email address, or this visitor id. */
export type Person = { email: string } | { visitorId: string };

export interface Forgotten {
  emails: string[];
  visitors: string[];
  contacts: number;
  sessions: number;
  events: number;
  /** Deliveries of every subscriber (webhooks, alerts, …) about them. */
  deliveries: number;
  custom_field_values: number;
  /** Other people's contacts whose traits named the person: those trait values went. */
  contact_traits: number;
}

// A person is a handful of addresses and browsers; past these, the links join many people
// (a shared computer, a typo'd address), and guessing would delete someone else.
const LIMITS = { rounds: 10, emails: 50, visitors: 500 };

/**
 * The person behind an address or a browser: every address and every visitor id (browser)
 * linked to them, followed transitively. A browser links the addresses it gave (contacts,
 * its identified address, `identify` events); an address links the browsers that gave it.
 * Starting from any of them gives the same person.
 */
async function personOf(
  trx: Kysely<Database>,
  workspaceId: string,
  person: Person,
): Promise<{ emails: string[]; visitors: string[] }> {
  const emails = new Set('email' in person ? [person.email.trim().toLowerCase()] : []);
  const visitors = new Set('visitorId' in person ? [person.visitorId.toLowerCase()] : []);
  for (let round = 0; round < LIMITS.rounds; round++) {
    const { rows } = await sql<{ email: string | null; visitor_id: string | null }>`
      SELECT c.email, cv.visitor_id FROM contacts c
      JOIN contact_visitors cv ON cv.workspace_id = c.workspace_id AND cv.contact_id = c.id
      WHERE c.workspace_id = ${workspaceId}
        AND (c.email = ANY(${[...emails]}::text[]) OR cv.visitor_id = ANY(${[...visitors]}::uuid[]))
      UNION SELECT lower(email), id FROM visitors
      WHERE workspace_id = ${workspaceId} AND email <> ''
        AND (lower(email) = ANY(${[...emails]}::text[]) OR id = ANY(${[...visitors]}::uuid[]))
      UNION SELECT lower(trim(e.data->>'email')), s.visitor_id FROM events e
      JOIN sessions s ON s.workspace_id = e.workspace_id AND s.id = e.session_id
      WHERE e.workspace_id = ${workspaceId} AND e.type = 'identify'
        AND (lower(trim(e.data->>'email')) = ANY(${[...emails]}::text[])
             OR s.visitor_id = ANY(${[...visitors]}::uuid[]))`.execute(trx);
    const before = emails.size + visitors.size;
    for (const row of rows) {
      // Only real addresses: a stray word would match, and delete, far too much.
      if (row.email && isEmailAddress(row.email)) emails.add(row.email);
      if (row.visitor_id) visitors.add(row.visitor_id);
    }
    if (emails.size > LIMITS.emails || visitors.size > LIMITS.visitors) {
      throw new Error(
        `The address or visitor is linked to ${emails.size} addresses and ${visitors.size} browsers, more than one person has (at most ${LIMITS.emails} and ${LIMITS.visitors}); nothing was deleted.`,
      );
    }
    if (emails.size + visitors.size === before) break;
  }
  return { emails: [...emails].sort(), visitors: [...visitors].sort() };
}

/**
 * Deletes a person (personOf) from a workspace in one transaction: their sessions, events,
 * visitors and contacts go, and so do other rows that still hold one of their addresses or
 * visitor ids: events and webhook deliveries of anyone (a form where someone else typed
 * it, an address in a page URL, plain or URL-encoded), referrers (cleared), custom-field
 * values, the trait values of other contacts that name them, and their requests still waiting
 * in the inbox or kept aside in its quarantine (contract §19).
 */
export async function forgetPerson(
  db: Kysely<Database>,
  workspaceId: string,
  person: Person,
): Promise<Forgotten> {
  if ('email' in person && !isEmailAddress(person.email.trim())) {
    throw new Error(`"${person.email}" is not an email address.`);
  }
  // A worker's batch may extend the person's sessions meanwhile and take the rows the stats
  // rollups share with its commit: PostgreSQL may then end one of the two in a deadlock.
  // The worker does its batch again; so does this, a few times.
  return againIfTransient(() => forgetOnce(db, workspaceId, person));
}

async function forgetOnce(
  db: Kysely<Database>,
  workspaceId: string,
  person: Person,
): Promise<Forgotten> {
  return db.transaction().execute(async (trx) => {
    const { emails, visitors } = await personOf(trx, workspaceId, person);
    const byEmail = emails.flatMap((email) => [
      likeContaining(email),
      likeContaining(encodeURIComponent(email)),
    ]);
    const byAnything = [...byEmail, ...visitors.map(likeContaining)];
    const { rows: sessions } = await sql<{ id: string }>`
      DELETE FROM sessions WHERE workspace_id = ${workspaceId}
        AND visitor_id = ANY(${visitors}::uuid[])
      RETURNING id`.execute(trx);
    const sessionIds = sessions.map((row) => row.id);
    // A session that stays but loses a page view no longer holds all its views' URLs
    // (migration 0041): readers count its views from what is left of its events.
    const { rows: removed } = await sql<{ events: number }>`
      WITH gone AS (
        DELETE FROM events WHERE workspace_id = ${workspaceId}
          AND (session_id = ANY(${sessionIds}::uuid[])
               OR url ILIKE ANY(${byEmail}::text[]) OR data::text ILIKE ANY(${byEmail}::text[]))
        RETURNING session_id, type
      ), unkept AS (
        UPDATE sessions s SET pages = NULL
        WHERE s.workspace_id = ${workspaceId} AND s.pages IS NOT NULL
          AND s.id IN (SELECT session_id FROM gone WHERE type = 'pageview')
      )
      SELECT count(*)::int AS events FROM gone`.execute(trx);
    await sql`
      UPDATE sessions SET referrer = '' WHERE workspace_id = ${workspaceId}
        AND referrer ILIKE ANY(${byEmail}::text[])`.execute(trx);
    const deliveries = await forgetDeliveries(trx, workspaceId, sessionIds, byAnything);
    const values = await sql`
      DELETE FROM custom_field_values WHERE workspace_id = ${workspaceId}
        AND value::text ILIKE ANY(${byAnything}::text[])`.execute(trx);
    await sql`
      DELETE FROM visitors WHERE workspace_id = ${workspaceId}
        AND (id = ANY(${visitors}::uuid[]) OR lower(email) = ANY(${emails}::text[]))`.execute(trx);
    await sql`
      DELETE FROM contact_visitors WHERE workspace_id = ${workspaceId}
        AND visitor_id = ANY(${visitors}::uuid[])`.execute(trx);
    const contacts = await sql`
      DELETE FROM contacts WHERE workspace_id = ${workspaceId}
        AND email = ANY(${emails}::text[])`.execute(trx);
    const traits = await sql`
      UPDATE contacts c SET traits = (
        SELECT coalesce(jsonb_object_agg(t.key, t.value), '{}'::jsonb) FROM jsonb_each(c.traits) t
        WHERE NOT (t.key ILIKE ANY(${byAnything}::text[])
                   OR t.value::text ILIKE ANY(${byAnything}::text[])))
      WHERE c.workspace_id = ${workspaceId} AND jsonb_typeof(c.traits) = 'object'
        AND c.traits::text ILIKE ANY(${byAnything}::text[])`.execute(trx);
    // Acknowledged but not yet processed, or kept aside: the raw requests go too.
    for (const table of ['ingest_inbox', 'ingest_quarantine'] as const) {
      await sql`
        DELETE FROM ${sql.table(table)} WHERE workspace_id = ${workspaceId}
          AND (record->>'visitorId' = ANY(${visitors}::text[])
               OR record::text ILIKE ANY(${byAnything}::text[]))`.execute(trx);
    }
    // Organisations lost sessions or values: the segments are computed again.
    if (sessionIds.length > 0 || affectedRows(values) > 0)
      await markSegmentsStale(trx, workspaceId);
    return {
      emails,
      visitors,
      contacts: affectedRows(contacts),
      sessions: sessionIds.length,
      events: removed[0]?.events ?? 0,
      deliveries,
      custom_field_values: affectedRows(values),
      contact_traits: affectedRows(traits),
    };
  });
}
