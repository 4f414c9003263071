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
// their unknown organisations are not tried, so a full workspace does not make every group
// that holds one of its visitors wait for its lock. A raised limit applies within that time.
const full = new LRUCache<string, string>({ max: 10_000, ttl: 5_000 });
const thisMonth = () => new Date().toISOString().slice(0, 7);
export const organisationKey = (workspaceId: string, domain: string) => `${workspaceId} ${domain}`;
const identificationJson = (organisation: NewOrganisation) =>
  JSON.stringify(organisation.identification ?? { method: 'unknown', evidence: {} });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The ids of these organisations in their workspaces, creating those that are new, in the
 * order given, while their workspace may still gain organisations this calendar month
 * (UTC; contract §4). Runs inside the caller's transaction, and takes its first locks:
 * the usage of every workspace that may gain one, in workspace id order. Its writers are
 * the only ones that create organisations, so under that lock the count is exact.
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
  await tx.lock(usageLocks(absent.map((a) => a.workspaceId)));
  // A statement of its own, after the lock: its snapshot then holds every organisation
  // made by the writers it waited for.
  const { rows } = await sql<{
    workspace_id: string;
    domain: string | null;
    id: string | null;
    created: boolean;
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
      SELECT w.id AS workspace_id, w.usage_limit - (
        SELECT count(*) FROM organisations o WHERE o.workspace_id = w.id
          AND o.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
      ) AS left_this_month
      FROM workspaces w WHERE w.id IN (SELECT workspace_id FROM absent)
    ), inserted AS (
      INSERT INTO organisations (workspace_id, id, domain, name, identification, status, excluded)
      SELECT a.workspace_id, gen_random_uuid(), a.domain, a.name, a.identification,
        CASE WHEN x.excluded THEN 'hidden' ELSE 'lead' END, x.excluded
      FROM absent a JOIN room r USING (workspace_id)
      -- An organisation of an excluded domain (contract §17) arrives hidden.
      CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM excluded_domains d
        WHERE d.workspace_id = a.workspace_id
          AND d.domain = ANY(domain_and_parents(a.domain))) AS excluded) x
      WHERE a.rank <= r.left_this_month
      ON CONFLICT (workspace_id, domain) DO NOTHING
      RETURNING workspace_id, domain, id
    )
    SELECT workspace_id, domain, id, false AS created FROM existing
    UNION ALL
    SELECT workspace_id, domain, id, true AS created FROM inserted
    UNION ALL
    -- The workspaces this group fills: no domain, no id.
    SELECT r.workspace_id, NULL, NULL, false FROM room r
    WHERE r.left_this_month <= (SELECT count(*) FROM inserted i WHERE i.workspace_id = r.workspace_id)`.execute(
    await tx.db(),
  );
  const month = thisMonth();
  for (const { workspace_id: workspaceId, domain, id, created } of rows) {
    if (domain === null || id === null) continue;
    found.set(organisationKey(workspaceId, domain), id);
    if (created) result.created.push({ workspaceId, id });
  }
  result.remember = () => {
    for (const { workspace_id: workspaceId, domain, id } of rows) {
      if (domain === null || id === null) full.set(workspaceId, month);
      else ids.set(organisationKey(workspaceId, domain), id);
    }
  };
  return result;
}

/**
 * The workspaces' usage locks, in id order: their rows, FOR NO KEY UPDATE, which does not
 * wait for (nor hold up) the key-share locks that inserting sessions and organisations
 * takes on them through their foreign keys. SQL without parameters, for Transaction.lock.
 */
function usageLocks(workspaceIds: string[]): string {
  const sorted = [...new Set(workspaceIds)].sort();
  if (!sorted.every((id) => UUID.test(id))) throw new Error('A workspace id is not a UUID.');
  return `SELECT 1 FROM workspaces WHERE id IN (${sorted.map((id) => `'${id}'`).join(', ')})
    ORDER BY id FOR NO KEY UPDATE`;
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
