import { createRequire } from 'node:module';
import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import { getDomain } from 'tldts';
import { PREPARED } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { isEmailAddress } from '../http/email-address.js';
import { queueForSegments } from '../outbox/segment-queue.js';
import type { OrganisationHint } from './ip-ranges.js';
import type { Resolver } from './resolver.js';

const require = createRequire(import.meta.url);
let personalDomains: Set<string> | undefined;

/** Free-mail and disposable domains: an address there names a person, not a company. */
function isPersonalDomain(domain: string): boolean {
  personalDomains ??= new Set([
    ...(require('email-providers/all.json') as string[]),
    ...(require('disposable-email-domains') as string[]),
  ]);
  return personalDomains.has(domain);
}

/** The registrable domain of a business email address; null for free-mail and disposable ones. */
export function businessDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  if (at < 1) return null;
  const host = email
    .slice(at + 1)
    .trim()
    .toLowerCase();
  if (isPersonalDomain(host)) return null;
  const domain = getDomain(host);
  return domain && !isPersonalDomain(domain) ? domain : null;
}

const EMAIL_FIELD = /e-?mail/i;

/** An email address a request gives, with the traits an `identify()` call sent along. */
export interface EmailSighting {
  email: string;
  traits: Record<string, unknown>;
}

/**
 * What identification reads of a tracked event: its type and its data (ingest's events fit;
 * identify/ keeps its own type so it does not import the collector).
 */
export interface SeenEvent {
  type: string;
  data: Record<string, unknown>;
}

/** Email addresses a request gives: `identify()` calls and email fields of submitted forms. */
export function emailSightings(events: readonly SeenEvent[]): EmailSighting[] {
  const found: EmailSighting[] = [];
  for (const event of events) {
    if (event.type === 'identify') {
      found.push({
        email: String(event.data.email ?? ''),
        traits: (event.data.traits as Record<string, unknown>) ?? {},
      });
    }
    if (event.type === 'form_submit') {
      for (const field of (event.data.fields as { name: string; value: string }[]) ?? []) {
        if (EMAIL_FIELD.test(field.name)) found.push({ email: field.value, traits: {} });
      }
    }
  }
  return found
    .map((sighting) => ({ ...sighting, email: sighting.email.trim().toLowerCase() }))
    .filter((sighting) => isEmailAddress(sighting.email));
}

export const emailsOf = (events: readonly SeenEvent[]): string[] =>
  emailSightings(events).map((sighting) => sighting.email);

export interface Identification extends OrganisationHint {
  email: string;
}

const MISSING = Symbol('missing');

// A forgotten visitor (footfall forget) is forgotten by running servers within this time.
const KNOWN_TTL_MS = 5 * 60_000;

/**
 * Visitors the identity layer has named, remembered per process for five minutes (misses
 * for one). The collector asks only this memory (`cached`), never the database on its
 * answer path; a worker asks for a whole batch in one query (`knownMany`).
 */
export class Identities {
  private readonly cache = new LRUCache<string, OrganisationHint | typeof MISSING>({
    max: 100_000,
    ttl: 60_000,
  });

  constructor(private readonly db: Kysely<Database>) {}

  /** What this process remembers of the visitor: a hint, null (known to be unnamed), or undefined. */
  cached(workspaceId: string, visitorId: string): OrganisationHint | null | undefined {
    const cached = this.cache.get(`${workspaceId} ${visitorId}`);
    return cached === MISSING ? null : cached;
  }

  async known(workspaceId: string, visitorId: string): Promise<OrganisationHint | null> {
    return (
      (await this.knownMany([{ workspaceId, visitorId }])).get(`${workspaceId} ${visitorId}`) ??
      null
    );
  }

  /**
   * The organisations the identity layer named for these visitors, by `workspace visitor`
   * key (absent: none): the remembered ones, then the rest in one query.
   */
  async knownMany(
    visitors: { workspaceId: string; visitorId: string }[],
    db: Kysely<Database> = this.db,
  ): Promise<Map<string, OrganisationHint>> {
    const found = new Map<string, OrganisationHint>();
    const asked = new Map<string, { workspaceId: string; visitorId: string }>();
    for (const visitor of visitors) {
      const key = `${visitor.workspaceId} ${visitor.visitorId}`;
      const cached = this.cache.get(key);
      if (cached === undefined) asked.set(key, visitor);
      else if (cached !== MISSING) found.set(key, cached);
    }
    if (asked.size === 0) return found;
    const list = [...asked.values()];
    // Asked by every batch of the workers: prepared (db/prepared.ts).
    const { rows } = await sql<{
      workspace_id: string;
      id: string;
      domain: string;
      name: string;
    }>`${PREPARED}
      SELECT v.workspace_id, v.id, o.domain, o.name
      FROM unnest(${list.map((v) => v.workspaceId)}::uuid[], ${list.map((v) => v.visitorId)}::uuid[])
        AS k(workspace_id, visitor_id)
      JOIN visitors v ON v.workspace_id = k.workspace_id AND v.id = k.visitor_id
      JOIN organisations o ON o.workspace_id = v.workspace_id AND o.id = v.organisation_id`.execute(
      db,
    );
    for (const row of rows) {
      const key = `${row.workspace_id} ${row.id}`;
      const hint = { domain: row.domain, name: row.name };
      found.set(key, hint);
      this.cache.set(key, hint, { ttl: KNOWN_TTL_MS });
    }
    for (const key of asked.keys()) if (!found.has(key)) this.cache.set(key, MISSING);
    return found;
  }

  remember(workspaceId: string, visitorId: string, hint: OrganisationHint): void {
    this.cache.set(`${workspaceId} ${visitorId}`, hint, { ttl: KNOWN_TTL_MS });
  }
}

/**
 * The identity layer: a visitor once identified stays so; otherwise a business email in
 * this request (from `identify()` or a submitted form) names its organisation.
 * `memoryOnly` (the collector's answer path): a visitor is looked up only in what this
 * process remembers; the worker's `known_visitors` phase asks the database for the rest,
 * and what it finds there wins, as it would have won here.
 */
export const identityResolver = (
  identities: Identities,
  { memoryOnly = false }: { memoryOnly?: boolean } = {},
): Resolver => ({
  name: 'identity',
  async resolve(clues) {
    const known = !clues.visitorId
      ? null
      : memoryOnly
        ? identities.cached(clues.workspaceId, clues.visitorId)
        : await identities.known(clues.workspaceId, clues.visitorId);
    if (known) return known;
    for (const email of clues.emails) {
      const domain = businessDomain(email);
      if (domain) {
        return {
          domain,
          name: '',
          email,
          // The domain only: the address itself is personal data, kept with the contact.
          identification: { method: 'email_domain', evidence: { domain } },
        } satisfies Identification;
      }
    }
    return null;
  },
});

/**
 * Records who identified themselves and attributes all their sessions in the workspace to
 * that organisation, earlier ones included. Runs inside the writer's transaction, under
 * the visitors' locks.
 */
export async function recordIdentifications(
  trx: Kysely<Database>,
  rows: { workspaceId: string; visitorId: string; organisationId: string; email: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  // One row per visitor (the group's last word): a statement may not upsert a row twice.
  const latest = [
    ...new Map(rows.map((row) => [`${row.workspaceId} ${row.visitorId}`, row])).values(),
  ];
  const column = <T>(pick: (row: (typeof rows)[number]) => T) => latest.map(pick);
  await sql`${PREPARED}
    WITH input AS (
      SELECT * FROM unnest(${column((r) => r.workspaceId)}::uuid[], ${column((r) => r.visitorId)}::uuid[],
                           ${column((r) => r.organisationId)}::uuid[], ${column((r) => r.email)}::text[])
        AS i(workspace_id, visitor_id, organisation_id, email)
    ), visitors_written AS (
      INSERT INTO visitors (workspace_id, id, organisation_id, email)
      SELECT workspace_id, visitor_id, organisation_id, email FROM input
      ON CONFLICT (workspace_id, id) DO UPDATE
        SET organisation_id = excluded.organisation_id, email = excluded.email, identified_at = now()
    ), queued AS (
      -- Both the organisations that gain the sessions and those that lose them changed.
      ${queueForSegments(sql`
        SELECT workspace_id, organisation_id FROM input
        UNION
        SELECT s.workspace_id, s.organisation_id FROM sessions s
        JOIN input ON s.workspace_id = input.workspace_id AND s.visitor_id = input.visitor_id
        WHERE s.organisation_id IS DISTINCT FROM input.organisation_id`)}
    )
    UPDATE sessions s SET organisation_id = input.organisation_id
    FROM input
    WHERE s.workspace_id = input.workspace_id AND s.visitor_id = input.visitor_id
      AND s.organisation_id IS DISTINCT FROM input.organisation_id`.execute(trx);
}
