import { createRequire } from 'node:module';
import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import { getDomain } from 'tldts';
import { PREPARED, preparedRows } from '../db/prepared.js';
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
 * for one).
 */
export class Identities {
  private readonly cache = new LRUCache<string, OrganisationHint | typeof MISSING>({
    max: 100_000,
    ttl: 60_000,
  });

  constructor(private readonly db: Kysely<Database>) {}

  async known(workspaceId: string, visitorId: string): Promise<OrganisationHint | null> {
    const key = `${workspaceId} ${visitorId}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached === MISSING ? null : cached;
    // Asked for most requests of a new visitor: prepared (db/prepared.ts).
    const [row] = await preparedRows(
      this.db,
      this.db
        .selectFrom('visitors as v')
        .innerJoin('organisations as o', (join) =>
          join
            .onRef('o.workspace_id', '=', 'v.workspace_id')
            .onRef('o.id', '=', 'v.organisation_id'),
        )
        .select(['o.domain', 'o.name'])
        .where('v.workspace_id', '=', workspaceId)
        .where('v.id', '=', visitorId),
    );
    this.cache.set(key, row ?? MISSING, row ? { ttl: KNOWN_TTL_MS } : {});
    return row ?? null;
  }

  remember(workspaceId: string, visitorId: string, hint: OrganisationHint): void {
    this.cache.set(`${workspaceId} ${visitorId}`, hint, { ttl: KNOWN_TTL_MS });
  }
}

/**
 * The identity layer: a visitor once identified stays so; otherwise a business email in
 * this request (from `identify()` or a submitted form) names its organisation.
 */
export const identityResolver = (identities: Identities): Resolver => ({
  name: 'identity',
  async resolve(clues) {
    const known = clues.visitorId
      ? await identities.known(clues.workspaceId, clues.visitorId)
      : null;
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
