import { type Kysely, type Selectable, sql } from 'kysely';
import type { CrmDeliveryTable, CrmName, Database } from '../../db/schema.js';
import { escapeHtml } from '../../http/html.js';
import { dashboardLink } from '../../http/links.js';
import { loadOrganisations } from '../../organisations/read.js';
import { presentSession } from '../../sessions/present.js';
import { loadSessions } from '../../sessions/query.js';
import { CrmError } from './call.js';
import type { CompanyFields, CrmClient } from './client.js';
import { qualifies } from './qualify.js';

/** A claimed delivery, as the worker hands it to `syncRows`. */
export type Row = Pick<
  Selectable<CrmDeliveryTable>,
  | 'id'
  | 'workspace_id'
  | 'integration'
  | 'kind'
  | 'organisation_id'
  | 'session_id'
  | 'contact_id'
  | 'changes'
  | 'attempts'
>;

/** What became of the rows: sent (or nothing to send), or to be tried again shortly. */
export interface Synced {
  done: Row[];
  /** Waiting for another worker's creation of the same company or contact. */
  later: Row[];
}

export interface SyncContext {
  db: Kysely<Database>;
  workspaceId: string;
  name: CrmName;
  client: CrmClient;
  /** PUBLIC_URL (or this server), for each company's footfall_url. */
  publicOrigin: string;
}

// How long a worker may take to create what it leased before another may try.
const CREATION_LEASE_SECONDS = 300;

/**
 * Sends the rows to the CRM: the companies of their organisations that qualify (found by
 * domain, else created, and kept current), then the contacts, then the notes. Rows whose
 * organisation no longer qualifies, or whose subject is gone, are done without a call.
 * Throws CrmError when a call fails; what was recorded before stays (it is all idempotent).
 */
export async function syncRows(ctx: SyncContext, rows: Row[]): Promise<Synced> {
  const wanted = await qualifying(ctx, [...new Set(rows.map((row) => row.organisation_id))]);
  const live = rows.filter((row) => wanted.has(row.organisation_id));
  const done = rows.filter((row) => !wanted.has(row.organisation_id));
  if (live.length === 0) return { done, later: [] };

  const organisations = await loadOrganisations(ctx.db, ctx.workspaceId, [
    ...new Set(live.map((row) => row.organisation_id)),
  ]);
  const fields = new Map(
    organisations.map((o) => [o.uuid, companyFields(ctx, o, wanted.get(o.uuid) as string)]),
  );
  const refresh = new Set(
    live.filter((row) => row.kind === 'company').map((row) => wanted.get(row.organisation_id)),
  );
  const companies = await ensureCompanies(ctx, [...fields.values()], refresh);
  const companyOf = (row: Row) => {
    const domain = fields.get(row.organisation_id)?.domain;
    return domain === undefined ? undefined : companies.get(domain);
  };
  const later = live.filter((row) => companyOf(row) === undefined);
  const ready = live.filter((row) => companyOf(row) !== undefined);

  const contactRows = ready.filter((row) => row.kind === 'contact');
  const waiting = await syncContacts(ctx, contactRows, (row) => companyOf(row) as string);
  await addNotes(
    ctx,
    ready.filter((row) => row.kind === 'note'),
    (row) => companyOf(row) as string,
  );
  return {
    done: [...done, ...ready.filter((row) => !waiting.has(row))],
    later: [...later, ...waiting],
  };
}

/** Of these organisations, those that qualify for the connection now, with their domain. */
async function qualifying(ctx: SyncContext, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await sql<{ id: string; domain: string }>`
    SELECT o.id, lower(o.domain) AS domain FROM organisations o
    JOIN crm_connections c ON c.workspace_id = o.workspace_id AND c.name = ${ctx.name}
    WHERE o.workspace_id = ${ctx.workspaceId} AND o.id = ANY(${ids}::uuid[]) AND ${qualifies()}`.execute(
    ctx.db,
  );
  return new Map(rows.map((row) => [row.id, row.domain]));
}

type Organisation = Awaited<ReturnType<typeof loadOrganisations>>[number];

function companyFields(ctx: SyncContext, o: Organisation, domain: string): CompanyFields {
  return {
    domain,
    name: o.name,
    website: o.website ?? '',
    phone: o.phone ?? '',
    city: o.address.city,
    country: o.address.country,
    industry: o.industry,
    score: o.score,
    lastSeen: o.last_seen,
    sessions: o.total_sessions,
    status: o.status,
    url: dashboardLink(ctx.publicOrigin, ctx.workspaceId, o.uuid),
  };
}

/**
 * The CRM company of each organisation, by domain: known ones from crm_records (updated
 * when in `refresh`), the rest leased, looked up in the CRM and created when missing. A
 * domain leased by another worker is left out (its rows wait and come back).
 */
async function ensureCompanies(
  ctx: SyncContext,
  all: CompanyFields[],
  refresh: Set<string | undefined>,
): Promise<Map<string, string>> {
  const byDomain = new Map(all.map((fields) => [fields.domain, fields]));
  const known = await knownRecords(ctx, 'company', [...byDomain.keys()]);
  const { found, created } = await findOrCreate(
    ctx,
    'company',
    [...byDomain.keys()].filter((domain) => !known.has(domain)),
    (domains) => ctx.client.findCompanies(domains),
    (domains) => ctx.client.createCompanies(domains.map((d) => byDomain.get(d) as CompanyFields)),
  );
  // Found in the CRM (made by a person, or by us before a restart) or asked for: current.
  const idOf = (domain: string) => known.get(domain) ?? found.get(domain);
  const update = all.filter(
    (f) => idOf(f.domain) !== undefined && (found.has(f.domain) || refresh.has(f.domain)),
  );
  const gone = new Set(
    await ctx.client.updateCompanies(
      update.map((fields) => ({ id: idOf(fields.domain) as string, fields })),
    ),
  );
  // Deleted in the CRM: forget it, so the rows' next round finds or creates it anew.
  const goneDomains = update.filter((f) => gone.has(idOf(f.domain) as string)).map((f) => f.domain);
  await forget(ctx, 'company', goneDomains);
  const ids = new Map<string, string>();
  for (const domain of byDomain.keys()) {
    const id = idOf(domain) ?? created.get(domain);
    if (id !== undefined && !goneDomains.includes(domain)) ids.set(domain, id);
  }
  return ids;
}

/**
 * Finds in the CRM, or creates, the objects of `keys` this worker can lease, recording
 * each as soon as the CRM answered for it. When a call fails before the CRM took it (429,
 * a refused token, a refused content) the unrecorded leases are given back for the next
 * try; after a timeout or a 5xx they are kept until they run out, as the CRM may have
 * created them, and its search may take a while to show them.
 */
async function findOrCreate(
  ctx: SyncContext,
  kind: Kind,
  keys: string[],
  find: (keys: string[]) => Promise<Map<string, string>>,
  create: (keys: string[]) => Promise<Map<string, string>>,
): Promise<{ found: Map<string, string>; created: Map<string, string> }> {
  const leased = await lease(ctx, kind, keys);
  const found = new Map<string, string>();
  const created = new Map<string, string>();
  try {
    for (const [key, id] of await find(leased)) found.set(key, id);
    await record(ctx, kind, [...found]);
    const missing = leased.filter((key) => !found.has(key));
    for (let at = 0; at < missing.length; at += ctx.client.perCreate) {
      const made = await create(missing.slice(at, at + ctx.client.perCreate));
      await record(ctx, kind, [...made]);
      for (const [key, id] of made) created.set(key, id);
    }
  } catch (error) {
    if (error instanceof CrmError && error.problem !== 'unavailable') {
      await unlease(
        ctx,
        kind,
        leased.filter((key) => !found.has(key) && !created.has(key)),
      );
    }
    throw error;
  }
  // Answered without it (should not happen): free for the next try.
  await unlease(
    ctx,
    kind,
    leased.filter((key) => !found.has(key) && !created.has(key)),
  );
  return { found, created };
}

/**
 * Contacts to CRM contacts linked to their company: found by e-mail first. Answers the
 * rows that must wait (another worker is creating the same contact).
 */
async function syncContacts(
  ctx: SyncContext,
  rows: Row[],
  companyOf: (row: Row) => string,
): Promise<Set<Row>> {
  const waiting = new Set<Row>();
  if (rows.length === 0) return waiting;
  const contacts = new Map<Row, { email: string; name: string }>();
  const ids = rows.flatMap((row) => (row.contact_id ? [row.contact_id] : []));
  if (ids.length === 0) return waiting;
  const stored = await ctx.db
    .selectFrom('contacts')
    .select(['id', 'email', 'traits'])
    .where('workspace_id', '=', ctx.workspaceId)
    .where('id', 'in', ids)
    .execute();
  const byId = new Map(stored.map((contact) => [contact.id, contact]));
  for (const row of rows) {
    const contact = row.contact_id ? byId.get(row.contact_id) : undefined;
    if (contact) {
      const traits = contact.traits as { name?: unknown };
      const name = typeof traits.name === 'string' ? traits.name : '';
      contacts.set(row, { email: contact.email.toLowerCase(), name });
    }
  }
  const emails = [...new Set([...contacts.values()].map((c) => c.email))];
  const known = await knownRecords(ctx, 'contact', emails);
  const rowOf = new Map([...contacts].map(([row, contact]) => [contact.email, row]));
  const { found, created } = await findOrCreate(
    ctx,
    'contact',
    emails.filter((email) => !known.has(email)),
    (keys) => ctx.client.findContacts(keys),
    (keys) =>
      ctx.client.createContacts(
        keys.map((email) => {
          const row = rowOf.get(email) as Row;
          const contact = contacts.get(row) as { email: string; name: string };
          return { ...contact, companyId: companyOf(row) };
        }),
      ),
  );
  const links: { contactId: string; companyId: string }[] = [];
  for (const [row, contact] of contacts) {
    const id = known.get(contact.email) ?? found.get(contact.email);
    if (id !== undefined) links.push({ contactId: id, companyId: companyOf(row) });
    else if (!created.has(contact.email)) waiting.add(row);
  }
  await ctx.client.linkContacts(links);
  return waiting;
}

/** A note on the company for each ended session, listing its pages. */
async function addNotes(ctx: SyncContext, rows: Row[], companyOf: (row: Row) => string) {
  if (rows.length === 0) return;
  const sessions = await loadSessions(
    ctx.db,
    ctx.workspaceId,
    rows.flatMap((row) => (row.session_id ? [row.session_id] : [])),
  );
  const byId = new Map(sessions.map((session) => [session.id, session]));
  const notes = rows.flatMap((row) => {
    const session = row.session_id ? byId.get(row.session_id) : undefined;
    return session
      ? [{ companyId: companyOf(row), html: noteHtml(session), at: session.ended_at }]
      : [];
  });
  await ctx.client.addNotes(notes);
}

/** A session as a note: when, how long, and each page viewed with its time on page. */
export function noteHtml(session: Parameters<typeof presentSession>[0]): string {
  const presented = presentSession(session);
  const views = presented.events.filter((event) => event.event_type === 'pageview');
  const minutes = Math.max(
    1,
    Math.round((session.ended_at.getTime() - session.started_at.getTime()) / 60_000),
  );
  const pages = views
    .map((view) => {
      const seconds = 'time_on_page' in view ? Number(view.time_on_page) : 0;
      return `<li>${escapeHtml(view.url)}${seconds > 0 ? ` (${seconds} s)` : ''}</li>`;
    })
    .join('');
  const when = session.started_at.toISOString().slice(0, 16).replace('T', ' ');
  return `<p><strong>Website visit</strong> on ${when} UTC: ${views.length} ${
    views.length === 1 ? 'page' : 'pages'
  } in about ${minutes} min (source: ${escapeHtml(session.source)}).</p><ul>${pages}</ul><p>Recorded by Footfall.</p>`;
}

type Kind = 'company' | 'contact';

async function knownRecords(ctx: SyncContext, kind: Kind, keys: string[]) {
  if (keys.length === 0) return new Map<string, string>();
  const rows = await ctx.db
    .selectFrom('crm_records')
    .select(['key', 'remote_id'])
    .where('workspace_id', '=', ctx.workspaceId)
    .where('integration', '=', ctx.name)
    .where('kind', '=', kind)
    .where('key', 'in', keys)
    .where('remote_id', 'is not', null)
    .execute();
  return new Map(rows.map((row) => [row.key, row.remote_id as string]));
}

/**
 * Leases the creation of `keys` to this worker: a key nobody holds, or whose lease ran out
 * (its worker died, maybe after creating it: the CRM is searched before creating).
 */
async function lease(ctx: SyncContext, kind: Kind, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const { rows } = await sql<{ key: string }>`
    INSERT INTO crm_records AS r (workspace_id, integration, kind, key, creating_until)
    SELECT ${ctx.workspaceId}, ${ctx.name}, ${kind}, k,
      now() + make_interval(secs => ${CREATION_LEASE_SECONDS})
    FROM unnest(${keys}::text[]) AS k
    ON CONFLICT (workspace_id, integration, kind, key) DO UPDATE
      SET creating_until = excluded.creating_until
      WHERE r.remote_id IS NULL AND r.creating_until < now()
    RETURNING key`.execute(ctx.db);
  return rows.map((row) => row.key);
}

async function record(ctx: SyncContext, kind: Kind, pairs: [string, string][]) {
  if (pairs.length === 0) return;
  await sql`
    UPDATE crm_records r SET remote_id = p.id, creating_until = NULL, synced_at = now()
    FROM unnest(${pairs.map(([key]) => key)}::text[], ${pairs.map(([, id]) => id)}::text[])
      AS p(key, id)
    WHERE r.workspace_id = ${ctx.workspaceId} AND r.integration = ${ctx.name}
      AND r.kind = ${kind} AND r.key = p.key`.execute(ctx.db);
}

/** Gives leases back whose creation did not happen, for the next try. */
const unlease = (ctx: SyncContext, kind: Kind, keys: string[]) => drop(ctx, kind, keys, true);

/** Forgets objects deleted in the CRM, so that the next round finds or creates them anew. */
const forget = (ctx: SyncContext, kind: Kind, keys: string[]) => drop(ctx, kind, keys, false);

async function drop(ctx: SyncContext, kind: Kind, keys: string[], leasesOnly: boolean) {
  if (keys.length === 0) return;
  let deletion = ctx.db
    .deleteFrom('crm_records')
    .where('workspace_id', '=', ctx.workspaceId)
    .where('integration', '=', ctx.name)
    .where('kind', '=', kind)
    .where('key', 'in', keys);
  if (leasesOnly) deletion = deletion.where('remote_id', 'is', null);
  await deletion.execute();
}
