import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import { PREPARED } from '../db/prepared.js';
import type { Database, OrganisationStatus } from '../db/schema.js';
import type { Transaction } from '../db/transaction.js';
import type { OrganisationIdentification } from '../identify/ip-ranges.js';
import { eventRows, recordEvents } from '../outbox/events.js';
import { queueForScoring } from '../outbox/scoring-queue.js';
import { refreshOrganisations } from '../segments/membership.js';

/** An organisation a request names: found by domain, or created from this when new. */
export interface NewOrganisation {
  workspaceId: string;
  domain: string;
  name: string;
  /** How the resolver found it, recorded when it is created. */
  identification?: OrganisationIdentification;
}

/** What ensureOrganisations found and made. */
export interface Organisations {
  /** Ids by organisationKey(workspace, domain); absent where the usage limit refused one. */
  ids: Map<string, string>;
  /** Those created by this transaction (each owes an organisation.identified). */
  created: { workspaceId: string; id: string }[];
  /** Remembers the ids for later groups; call once the transaction has committed. */
  remember(): void;
}

// An organisation's id never changes, so (workspace, domain) → id can be remembered; for a
// while only, since `footfall identification mend` may remove one.
const ids = new LRUCache<string, string>({ max: 100_000, ttl: 60_000 });
// Workspaces found at their usage limit, with the month (UTC) of that finding: for 5 s
// their unknown organisations are not tried, so a full workspace does not cost every group
// that holds one of its visitors a statement. A raised limit applies within that time.
const full = new LRUCache<string, string>({ max: 10_000, ttl: 5_000 });
const thisMonth = () => new Date().toISOString().slice(0, 7);
export const organisationKey = (workspaceId: string, domain: string) => `${workspaceId} ${domain}`;
const identificationJson = (organisation: NewOrganisation) =>
  JSON.stringify(organisation.identification ?? { method: 'unknown', evidence: {} });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The ids of these organisations in their workspaces, creating those that are new, in the
 * order given, while their workspace may still gain organisations this calendar month
 * (UTC; contract §4). Runs inside the caller's transaction and takes no lock for the count:
 * it reads the month's count as it stands, creates what the room it read allows, and adds
 * what it created to the count with the commit (`workspace_usage_add`, migration 0031),
 * which fails as a serialization failure, to be done again, when another transaction took
 * the room meanwhile. So the limit holds exactly, and only a transaction that created an
 * organisation locks a workspace's count, for no longer than its commit takes.
 */
export async function ensureOrganisations(
  tx: Transaction<Database>,
  wanted: NewOrganisation[],
): Promise<Organisations> {
  const found = new Map<string, string>();
  const missing = new Map<string, NewOrganisation>();
  for (const organisation of wanted) {
    const key = organisationKey(organisation.workspaceId, organisation.domain);
    const id = ids.get(key);
    if (id) found.set(key, id);
    else if (full.get(organisation.workspaceId) !== thisMonth() && !missing.has(key)) {
      missing.set(key, organisation);
    }
  }
  const result: Organisations = { ids: found, created: [], remember: () => {} };
  if (missing.size === 0) return result;
  const absent = [...missing.values()];
  const { rows } = await sql<{
    workspace_id: string;
    domain: string | null;
    id: string | null;
    found: 'existing' | 'created' | 'taken' | 'full';
  }>`${PREPARED}
    WITH wanted AS (
      SELECT * FROM unnest(${absent.map((a) => a.workspaceId)}::uuid[],
        ${absent.map((a) => a.domain)}::text[], ${absent.map((a) => a.name)}::text[],
        ${absent.map(identificationJson)}::jsonb[])
        WITH ORDINALITY AS k(workspace_id, domain, name, identification, n)
    ), existing AS (
      SELECT o.workspace_id, o.domain, o.id FROM organisations o JOIN wanted USING (workspace_id, domain)
    ), absent AS (
      SELECT k.*, row_number() OVER (PARTITION BY k.workspace_id ORDER BY k.n) AS rank
      FROM wanted k
      WHERE NOT EXISTS (SELECT 1 FROM existing e
                        WHERE e.workspace_id = k.workspace_id AND e.domain = k.domain)
    ), room AS (
      SELECT w.id AS workspace_id, w.usage_limit - coalesce(u.organisations, 0) AS left_this_month
      FROM workspaces w
      LEFT JOIN workspace_usage u ON u.workspace_id = w.id
        AND u.month = date_trunc('month', now() AT TIME ZONE 'UTC')::date
      WHERE w.id IN (SELECT workspace_id FROM absent)
    ), tried AS (
      SELECT a.* FROM absent a JOIN room r USING (workspace_id) WHERE a.rank <= r.left_this_month
    ), inserted AS (
      INSERT INTO organisations (workspace_id, id, domain, name, identification, status, excluded)
      SELECT t.workspace_id, gen_random_uuid(), t.domain, t.name, t.identification,
        CASE WHEN x.excluded THEN 'hidden' ELSE 'lead' END, x.excluded
      FROM tried t
      -- An organisation of an excluded domain (contract §17) arrives hidden.
      CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM excluded_domains d
        WHERE d.workspace_id = t.workspace_id
          AND d.domain = ANY(domain_and_parents(t.domain))) AS excluded) x
      -- In key order: transactions making the same organisations wait for each other in one
      -- order (nothing else serialises them now).
      ORDER BY t.workspace_id, t.domain
      ON CONFLICT (workspace_id, domain) DO NOTHING
      RETURNING workspace_id, domain, id
    )
    SELECT workspace_id, domain, id, 'existing' AS found FROM existing
    UNION ALL
    SELECT workspace_id, domain, id, 'created' FROM inserted
    UNION ALL
    -- Made by another transaction since this statement began (the insert waited for it).
    SELECT t.workspace_id, t.domain, NULL, 'taken' FROM tried t
    WHERE NOT EXISTS (SELECT 1 FROM inserted i
                      WHERE i.workspace_id = t.workspace_id AND i.domain = t.domain)
    UNION ALL
    -- The workspaces this group fills: no domain, no id.
    SELECT r.workspace_id, NULL, NULL, 'full' FROM room r
    WHERE r.left_this_month <= (SELECT count(*) FROM inserted i WHERE i.workspace_id = r.workspace_id)`.execute(
    await tx.db(),
  );
  const taken = rows.filter((row) => row.found === 'taken');
  if (taken.length > 0) {
    // A statement of its own: its snapshot holds what the insert waited for.
    const { rows: made } = await sql<{ workspace_id: string; domain: string; id: string }>`
      SELECT o.workspace_id, o.domain, o.id FROM organisations o
      JOIN unnest(${taken.map((row) => row.workspace_id)}::uuid[],
        ${taken.map((row) => row.domain)}::text[]) AS k(workspace_id, domain)
        USING (workspace_id, domain)`.execute(await tx.db());
    rows.push(...made.map((row) => ({ ...row, found: 'existing' as const })));
  }
  const created = new Map<string, number>();
  for (const row of rows) {
    if (row.found === 'created') {
      created.set(row.workspace_id, (created.get(row.workspace_id) ?? 0) + 1);
    }
  }
  if (created.size > 0) tx.beforeCommit(usageCount(created));
  const month = thisMonth();
  for (const { workspace_id: workspaceId, domain, id, found: how } of rows) {
    if (domain === null || id === null) continue;
    found.set(organisationKey(workspaceId, domain), id);
    if (how === 'created') result.created.push({ workspaceId, id });
  }
  result.remember = () => {
    for (const { workspace_id: workspaceId, domain, id, found: how } of rows) {
      if (how === 'full') full.set(workspaceId, month);
      else if (domain !== null && id !== null) ids.set(organisationKey(workspaceId, domain), id);
    }
  };
  return result;
}

/**
 * SQL for Transaction.beforeCommit: the organisations created per workspace added to the
 * month's counts (in workspace order, by the function), built from checked UUIDs.
 */
function usageCount(created: Map<string, number>): string {
  const workspaces = [...created.keys()];
  if (!workspaces.every((id) => UUID.test(id))) throw new Error('A workspace id is not a UUID.');
  return `SELECT workspace_usage_add(ARRAY[${workspaces.map((id) => `'${id}'`).join(', ')}]::uuid[],
    ARRAY[${workspaces.map((id) => created.get(id) ?? 0).join(', ')}]::integer[])`;
}

/** Whether the workspace has this organisation. */
export async function organisationExists(
  db: Kysely<Database>,
  workspaceId: string,
  organisationId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('organisations')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', organisationId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Sets an organisation's owner (a member, checked by the caller, or null) and status (a
 * person's choice: it no longer follows the excluded domains). Segments that filter by
 * either follow in the same transaction, as does an organisation.changed event for a new
 * status (the CRM sync); the score in the scoring job's next round.
 */
export async function updateOrganisation(
  db: Kysely<Database>,
  workspaceId: string,
  organisationId: string,
  change: { ownerId?: string | null; status?: OrganisationStatus },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    let update = trx
      .updateTable('organisations')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', organisationId);
    if (change.ownerId !== undefined) update = update.set({ owner_id: change.ownerId });
    if (change.status !== undefined)
      update = update.set({ status: change.status, excluded: false });
    if (change.ownerId === undefined && change.status === undefined) return;
    await update.execute();
    if (change.status !== undefined) {
      await recordEvents(
        eventRows(
          'organisation.changed',
          sql`SELECT ${workspaceId}::uuid AS workspace_id, ${organisationId}::uuid AS organisation_id`,
        ),
      ).execute(trx);
    }
    await refreshOrganisations(trx, workspaceId, [organisationId]);
    await queueForScoring(trx, workspaceId, [organisationId]);
  });
}
