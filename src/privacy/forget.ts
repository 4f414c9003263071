import { type Kysely, sql } from 'kysely';
import { likeContaining } from '../db/like.js';
import type { Database } from '../db/schema.js';
import { markSegmentsStale } from '../segments/membership.js';

/** Who to forget: everything known under this email address, or this visitor id. */
export type Person = { email: string } | { visitorId: string };

export interface Forgotten {
  emails: string[];
  visitors: string[];
  contacts: number;
  sessions: number;
  events: number;
  webhook_deliveries: number;
  custom_field_values: number;
}

const count = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0n);

/**
 * Deletes a person from a workspace in one transaction. The person is their email
 * addresses and the visitor ids (browsers) tied to them: a visitor's contacts and
 * identified address, and every visitor that identified with one of the addresses.
 * Their sessions, events and contacts go, and so do other rows that still hold an
 * address or a visitor id: events and webhook deliveries of anyone (a form where
 * someone else typed it, an address in a page URL, plain or URL-encoded), referrers
 * (cleared) and custom-field values.
 */
export async function forgetPerson(
  db: Kysely<Database>,
  workspaceId: string,
  person: Person,
): Promise<Forgotten> {
  return db.transaction().execute(async (trx) => {
    const given = 'email' in person ? [person.email.trim().toLowerCase()] : [];
    const start = 'visitorId' in person ? [person.visitorId.toLowerCase()] : [];
    const { rows: named } = await sql<{ email: string }>`
      SELECT c.email FROM contacts c
      JOIN contact_visitors cv ON cv.workspace_id = c.workspace_id AND cv.contact_id = c.id
      WHERE c.workspace_id = ${workspaceId} AND cv.visitor_id = ANY(${start}::uuid[])
      UNION SELECT lower(email) FROM visitors
      WHERE workspace_id = ${workspaceId} AND id = ANY(${start}::uuid[]) AND email <> ''`.execute(
      trx,
    );
    const emails = [...new Set([...given, ...named.map((row) => row.email)])];
    const { rows: linked } = await sql<{ visitor_id: string }>`
      SELECT cv.visitor_id FROM contacts c
      JOIN contact_visitors cv ON cv.workspace_id = c.workspace_id AND cv.contact_id = c.id
      WHERE c.workspace_id = ${workspaceId} AND c.email = ANY(${emails}::text[])
      UNION SELECT id FROM visitors
      WHERE workspace_id = ${workspaceId} AND lower(email) = ANY(${emails}::text[])
      UNION SELECT s.visitor_id FROM events e
      JOIN sessions s ON s.workspace_id = e.workspace_id AND s.id = e.session_id
      WHERE e.workspace_id = ${workspaceId} AND e.type = 'identify'
        AND lower(e.data->>'email') = ANY(${emails}::text[])`.execute(trx);
    const visitors = [...new Set([...start, ...linked.map((row) => row.visitor_id)])];

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
    const events = await sql`
      DELETE FROM events WHERE workspace_id = ${workspaceId}
        AND (session_id = ANY(${sessionIds}::uuid[])
             OR url ILIKE ANY(${byEmail}::text[]) OR data::text ILIKE ANY(${byEmail}::text[]))`.execute(
      trx,
    );
    await sql`
      UPDATE sessions SET referrer = '' WHERE workspace_id = ${workspaceId}
        AND referrer ILIKE ANY(${byEmail}::text[])`.execute(trx);
    const deliveries = await sql`
      DELETE FROM webhook_deliveries WHERE workspace_id = ${workspaceId}
        AND (session_id = ANY(${sessionIds}::uuid[]) OR body ILIKE ANY(${byAnything}::text[]))`.execute(
      trx,
    );
    const values = await sql`
      DELETE FROM custom_field_values WHERE workspace_id = ${workspaceId}
        AND value::text ILIKE ANY(${byEmail}::text[])`.execute(trx);
    await sql`
      DELETE FROM visitors WHERE workspace_id = ${workspaceId}
        AND (id = ANY(${visitors}::uuid[]) OR lower(email) = ANY(${emails}::text[]))`.execute(trx);
    await sql`
      DELETE FROM contact_visitors WHERE workspace_id = ${workspaceId}
        AND visitor_id = ANY(${visitors}::uuid[])`.execute(trx);
    const contacts = await sql`
      DELETE FROM contacts WHERE workspace_id = ${workspaceId}
        AND email = ANY(${emails}::text[])`.execute(trx);
    // Organisations lost sessions (and maybe values): the segments are computed again.
    if (sessionIds.length > 0) await markSegmentsStale(trx, workspaceId);
    return {
      emails,
      visitors,
      contacts: count(contacts),
      sessions: sessionIds.length,
      events: count(events),
      webhook_deliveries: count(deliveries),
      custom_field_values: count(values),
    };
  });
}
