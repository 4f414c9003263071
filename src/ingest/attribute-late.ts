import { type Kysely, sql } from 'kysely';
import { isTransient, writeFailure } from '../db/failures.js';
import type { Database } from '../db/schema.js';
import { inTransaction, type Transaction } from '../db/transaction.js';
import type { WaitingVisitor } from '../enrich/lookups.js';
import type { OrganisationHint } from '../identify/ip-ranges.js';
import { ensureOrganisations, organisationKey } from '../organisations/store.js';
import { type DomainEvent, eventValues, recordEvents } from '../outbox/events.js';
import { queueForSegments } from '../outbox/segment-queue.js';

export interface AttributionDeps {
  db: Kysely<Database>;
  /**
   * The collector's lock statement for these visitors (`workspace visitor` keys), so a
   * session the writer is extending is not written back unattributed over this update.
   */
  visitorLocks: (keys: string[]) => string;
}

/** Workspaces where some of these visitors have a session no one has named yet. */
async function workspacesWithUnnamed(db: Kysely<Database>, visitors: WaitingVisitor[]) {
  const { rows } = await sql<{ workspace_id: string }>`
    SELECT DISTINCT s.workspace_id FROM sessions s
    JOIN unnest(${visitors.map((v) => v.workspaceId)}::uuid[], ${visitors.map((v) => v.visitorId)}::uuid[])
      AS k(workspace_id, visitor_id) USING (workspace_id, visitor_id)
    WHERE s.organisation_id IS NULL`.execute(db);
  return new Set(rows.map((row) => row.workspace_id));
}

/**
 * Names the organisation of visits that waited for a lookup: in one transaction, the
 * organisation is found or made in each workspace (within its usage limit), every session
 * of the waiting visitors that no one has named yet (earlier ones included) is attributed
 * to it, their segments are queued, and a new organisation's `organisation.identified`
 * webhooks and alerts are written, as the collector's writer does. Sessions named by an
 * e-mail or the operator's ranges are never taken. Answers the number of sessions named.
 */
export async function attributeLate(
  deps: AttributionDeps,
  hint: OrganisationHint,
  visitors: WaitingVisitor[],
): Promise<number> {
  if (visitors.length === 0) return 0;
  // Before any lock: a workspace with nothing left to name gains no organisation (nor uses
  // its monthly allowance for one).
  const workspaces = await workspacesWithUnnamed(deps.db, visitors);
  if (workspaces.size === 0) return 0;
  let remember = () => {};
  const attribute = async (tx: Transaction<Database>) => {
    const found = await ensureOrganisations(
      tx,
      [...workspaces].map((workspaceId) => ({ workspaceId, ...hint })),
    );
    remember = found.remember;
    const named = visitors.flatMap((visitor) => {
      const id = found.ids.get(organisationKey(visitor.workspaceId, hint.domain));
      return id ? [{ ...visitor, organisationId: id }] : [];
    });
    if (named.length === 0) return 0;
    // After making the organisation, as the writer: the same global order, no deadlock.
    await tx.lock(deps.visitorLocks(named.map((v) => `${v.workspaceId} ${v.visitorId}`)));
    const db = await tx.db();
    const { rows } = await sql<{ sessions: number }>`
      WITH input AS (
        SELECT * FROM unnest(${named.map((v) => v.workspaceId)}::uuid[],
          ${named.map((v) => v.visitorId)}::uuid[], ${named.map((v) => v.organisationId)}::uuid[])
          AS i(workspace_id, visitor_id, organisation_id)
      ), updated AS (
        UPDATE sessions s SET organisation_id = i.organisation_id
        FROM input i
        WHERE s.workspace_id = i.workspace_id AND s.visitor_id = i.visitor_id
          AND s.organisation_id IS NULL
        RETURNING s.workspace_id, s.organisation_id
      ), queued AS (
        ${queueForSegments(sql`SELECT workspace_id, organisation_id FROM updated`)}
      )
      SELECT count(*)::int AS sessions FROM updated`.execute(db);
    const identified: DomainEvent[] = found.created.map(({ workspaceId, id }) => ({
      kind: 'organisation.identified',
      workspaceId,
      organisationId: id,
    }));
    if (identified.length > 0) await recordEvents(eventValues(identified)).execute(db);
    return rows[0]?.sessions ?? 0;
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const attributed = await inTransaction(deps.db, attribute);
      remember();
      return attributed;
    } catch (error) {
      // A deadlock, or another transaction took the workspace's last room for an organisation
      // meanwhile (organisations/store.ts): done again, it reads what that one committed.
      if (attempt >= 3 || !isTransient(writeFailure(error))) throw error;
    }
  }
}
