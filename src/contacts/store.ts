import { randomUUID } from 'node:crypto';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { PREPARED } from '../db/prepared.js';
import type { Database } from '../db/schema.js';

/** A person seen giving an email address on a visit. */
export interface ContactSighting {
  workspaceId: string;
  visitorId: string;
  email: string;
  traits: Record<string, unknown>;
  /** The organisation the visit is attributed to, if any. */
  organisationId: string | null;
}

/** A contact recorded for the first time, with the organisation it then had. */
export interface NewContact {
  workspaceId: string;
  contactId: string;
  organisationId: string | null;
}

/**
 * Records people who gave an email address: one contact per address and workspace, its
 * traits merged (later values win), its organisation the latest known, and the visitor
 * ids it came from. Runs inside the writer's transaction. Answers the contacts new to their
 * workspace (for `contact.identified`).
 */
export async function recordContacts(
  trx: Kysely<Database>,
  sightings: ContactSighting[],
): Promise<NewContact[]> {
  if (sightings.length === 0) return [];
  // One row per contact: a statement may not upsert the same row twice.
  const merged = new Map<string, ContactSighting & { visitorIds: Set<string> }>();
  for (const sighting of sightings) {
    const key = `${sighting.workspaceId} ${sighting.email}`;
    const known = merged.get(key);
    if (!known) {
      merged.set(key, { ...sighting, visitorIds: new Set([sighting.visitorId]) });
      continue;
    }
    known.traits = { ...known.traits, ...sighting.traits };
    known.organisationId = sighting.organisationId ?? known.organisationId;
    known.visitorIds.add(sighting.visitorId);
  }
  // Always in the same order, so concurrent writers cannot deadlock on contact rows.
  const contacts = [...merged.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, contact]) => contact);
  const links = contacts.flatMap((c) =>
    [...c.visitorIds].map((visitorId) => ({ ...c, visitorId })),
  );
  // A contact that exists keeps its id: a returned id that is the one proposed is new.
  const proposed = contacts.map(() => randomUUID());
  const { rows } = await sql<{ workspace_id: string; id: string; organisation_id: string | null }>`
    ${PREPARED}
    WITH upserted AS (
      INSERT INTO contacts (workspace_id, id, email, organisation_id, traits)
      SELECT * FROM unnest(${contacts.map((c) => c.workspaceId)}::uuid[],
        ${proposed}::uuid[], ${contacts.map((c) => c.email)}::text[],
        ${contacts.map((c) => c.organisationId)}::uuid[],
        ${contacts.map((c) => JSON.stringify(c.traits))}::jsonb[])
      ON CONFLICT (workspace_id, email) DO UPDATE SET
        traits = contacts.traits || excluded.traits,
        organisation_id = coalesce(excluded.organisation_id, contacts.organisation_id)
      RETURNING workspace_id, id, email, organisation_id
    ), linked AS (
      -- Only contacts this statement upserted, locked by it until the commit: the links
      -- have no foreign key (migration 0030), so this is what keeps every one's contact.
      INSERT INTO contact_visitors (workspace_id, contact_id, visitor_id)
      SELECT u.workspace_id, u.id, l.visitor_id
      FROM upserted u
      JOIN unnest(${links.map((l) => l.workspaceId)}::uuid[], ${links.map((l) => l.email)}::text[],
                  ${links.map((l) => l.visitorId)}::uuid[]) AS l(workspace_id, email, visitor_id)
        USING (workspace_id, email)
      ON CONFLICT DO NOTHING
    )
    SELECT workspace_id, id, organisation_id FROM upserted
    WHERE id = ANY(${proposed}::uuid[])`.execute(trx);
  return rows.map((row) => ({
    workspaceId: row.workspace_id,
    contactId: row.id,
    organisationId: row.organisation_id,
  }));
}

export interface ContactFilters {
  workspaceId: string;
  /** One contact, by its uuid. */
  contactId?: string;
  organisationId?: string;
  /** The organisation's domain, or the email address's domain or a parent of it. */
  domain?: string;
}

export interface ContactRow {
  id: string;
  email: string;
  traits: Record<string, unknown>;
  organisation_id: string | null;
  visitor_ids: string[];
  first_seen: Date;
  last_seen: Date;
}

/**
 * A page of contacts, most recently seen first. First and last seen come from the
 * sessions of the contact's visitors (earlier visits included), when read.
 */
export async function findContactPage(
  db: Kysely<Database>,
  f: ContactFilters,
  page: { offset: number; limit: number },
): Promise<{ rows: ContactRow[]; total: number }> {
  const parts: RawBuilder<unknown>[] = [sql`c.workspace_id = ${f.workspaceId}`];
  if (f.contactId) parts.push(sql`c.id = ${f.contactId}`);
  if (f.organisationId) parts.push(sql`c.organisation_id = ${f.organisationId}`);
  if (f.domain) {
    const domain = f.domain.trim().toLowerCase();
    parts.push(sql`(o.domain = ${domain} OR split_part(c.email, '@', 2) = ${domain}
      OR right(split_part(c.email, '@', 2), ${domain.length + 1}) = ${`.${domain}`})`);
  }
  const { rows } = await sql<ContactRow & { total: number }>`
    WITH matching AS (
      SELECT c.id, c.email, c.traits, c.organisation_id, seen.visitor_ids,
             coalesce(seen.first_seen, c.created_at) AS first_seen,
             coalesce(seen.last_seen, c.created_at) AS last_seen
      FROM contacts c
      LEFT JOIN organisations o ON o.workspace_id = c.workspace_id AND o.id = c.organisation_id
      CROSS JOIN LATERAL (
        SELECT array_agg(DISTINCT cv.visitor_id ORDER BY cv.visitor_id) AS visitor_ids,
               min(s.started_at) AS first_seen, max(s.ended_at) AS last_seen
        FROM contact_visitors cv
        LEFT JOIN sessions s ON s.workspace_id = cv.workspace_id AND s.visitor_id = cv.visitor_id
        WHERE cv.workspace_id = c.workspace_id AND cv.contact_id = c.id
      ) seen
      WHERE ${sql.join(parts, sql` AND `)}
    ), page AS (
      SELECT * FROM matching ORDER BY last_seen DESC, email OFFSET ${page.offset} LIMIT ${page.limit}
    )
    SELECT page.*, (SELECT count(*) FROM matching)::int AS total
    FROM (SELECT 1) one LEFT JOIN page ON true
    ORDER BY page.last_seen DESC, page.email`.execute(db);
  return {
    rows: rows.filter((row) => row.id !== null).map(({ total: _total, ...row }) => row),
    total: rows[0]?.total ?? 0,
  };
}

/** One contact of the workspace, as the list shows it; undefined when there is none. */
export async function findContact(
  db: Kysely<Database>,
  workspaceId: string,
  contactId: string,
): Promise<ContactRow | undefined> {
  const { rows } = await findContactPage(db, { workspaceId, contactId }, { offset: 0, limit: 1 });
  return rows[0];
}
