import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { queueForSegments } from '../outbox/segment-queue.js';

/** What the network owner now says of an organisation's network. */
export interface NetworkVerdict {
  organisation: boolean;
  /** The enterprise's domain and common name, when the network now names one. */
  domain?: string;
  name?: string;
  /** Why, for the operator reading the plan (kind and rule of the judgement). */
  judged: Record<string, unknown>;
}

export interface MendedOrganisation {
  workspace: string;
  uuid: string;
  domain: string;
  name: string;
  judged: Record<string, unknown>;
  /** The sessions whose attribution is taken away. */
  sessions: string[];
  /** Whether the organisation is removed (nothing is left to it). */
  removed: boolean;
}

/** A network organisation keyed `as<number>` whose network now names an enterprise's domain. */
export interface MovedOrganisation {
  workspace: string;
  uuid: string;
  domain: string;
  /** Where it goes: the organisation of that domain (its uuid, kept when it already exists). */
  to: { domain: string; name: string; uuid: string };
  sessions: number;
}

export interface MendReport {
  dry_run: boolean;
  organisations: MendedOrganisation[];
  moved: MovedOrganisation[];
  sessions_detached: number;
  organisations_removed: number;
}

// Only the network owner makes organisations keyed as<number>; those it names by an
// enterprise's domain carry their AS number in their evidence.
const NETWORK_KEY = '^as[0-9]{1,10}$';

/**
 * `footfall identification mend`: organisations known only as a network owner that the
 * network owner no longer judges an organisation lose their sessions' attribution (the
 * sessions stay), and are removed when nothing is left to them (no session, no identified
 * visitor). A dry run reports the same without changing anything.
 */
export async function mendNetworkOrganisations(
  db: Kysely<Database>,
  verdictOf: (asn: number) => Promise<NetworkVerdict>,
  options: { dryRun: boolean; workspaceId?: string },
): Promise<MendReport> {
  const { rows } = await sql<{
    workspace_id: string;
    id: string;
    domain: string;
    name: string;
    asn: string;
  }>`
    SELECT workspace_id, id, domain, name,
      CASE WHEN domain ~ ${NETWORK_KEY} THEN substr(domain, 3)
           ELSE identification->'evidence'->>'asn' END AS asn
    FROM organisations
    WHERE (domain ~ ${NETWORK_KEY}
           OR (identification->>'method' = 'network_owner'
               AND identification->'evidence'->>'asn' ~ '^[0-9]{1,10}$'))
      ${options.workspaceId ? sql`AND workspace_id = ${options.workspaceId}` : sql``}
    ORDER BY workspace_id, domain`.execute(db);
  const verdicts = new Map<number, NetworkVerdict>();
  const report: MendReport = {
    dry_run: options.dryRun,
    organisations: [],
    moved: [],
    sessions_detached: 0,
    organisations_removed: 0,
  };
  for (const row of rows) {
    const asn = Number(row.asn);
    let verdict = verdicts.get(asn);
    if (!verdict) {
      verdict = await verdictOf(asn);
      verdicts.set(asn, verdict);
    }
    if (verdict.organisation) {
      if (verdict.domain && verdict.domain !== row.domain && /^as\d+$/.test(row.domain)) {
        const target = { domain: verdict.domain, name: verdict.name ?? row.name };
        report.moved.push(await moveTo(db, row, target, options.dryRun));
      }
      continue;
    }
    const mended = options.dryRun ? await plan(db, row) : await mend(db, row);
    report.organisations.push({
      workspace: row.workspace_id,
      uuid: row.id,
      domain: row.domain,
      name: row.name,
      judged: verdict.judged,
      ...mended,
    });
    report.sessions_detached += mended.sessions.length;
    if (mended.removed) report.organisations_removed++;
  }
  return report;
}

type Row = { workspace_id: string; id: string };

// The sessions the network owner gave it: not those of visitors who said by e-mail that
// they are with it (an enterprise's domain meets the same company found by e-mail).
const sessionsOf = ({ workspace_id, id }: Row) =>
  sql`SELECT s.id FROM sessions s WHERE s.workspace_id = ${workspace_id} AND s.organisation_id = ${id}
        AND NOT EXISTS (SELECT 1 FROM visitors v WHERE v.workspace_id = s.workspace_id
                          AND v.id = s.visitor_id AND v.organisation_id = s.organisation_id)`;

const identifiedVisitors = ({ workspace_id, id }: Row) =>
  sql`SELECT 1 FROM visitors v WHERE v.workspace_id = ${workspace_id} AND v.organisation_id = ${id}`;

async function plan(db: Kysely<Database>, row: Row) {
  const { rows } = await sql<{ id: string }>`${sessionsOf(row)}`.execute(db);
  const { rows: visitors } = await sql`${identifiedVisitors(row)} LIMIT 1`.execute(db);
  return { sessions: rows.map((r) => r.id).sort(), removed: visitors.length === 0 };
}

async function mend(db: Kysely<Database>, row: Row) {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ id: string }>`
      UPDATE sessions SET organisation_id = NULL
      WHERE workspace_id = ${row.workspace_id} AND id IN (${sessionsOf(row)})
      RETURNING id`.execute(trx);
    // Its tags, custom-field values and segment memberships go with it; contacts lose it.
    const removed = await sql`
      DELETE FROM organisations o WHERE o.workspace_id = ${row.workspace_id} AND o.id = ${row.id}
        AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.workspace_id = ${row.workspace_id}
                          AND s.organisation_id = ${row.id})
        AND NOT EXISTS (${identifiedVisitors(row)})`.execute(trx);
    return {
      sessions: rows.map((r) => r.id).sort(),
      removed: (removed.numAffectedRows ?? 0n) > 0n,
    };
  });
}

const both = (workspaceId: string, first: string, second: string) =>
  sql`SELECT ${workspaceId}::uuid AS workspace_id, ${first}::uuid AS organisation_id
      UNION SELECT ${workspaceId}::uuid, ${second}::uuid`;

/**
 * Moves an `as<number>` organisation to the enterprise domain its network now names: renamed
 * when the workspace has no organisation of that domain, else its sessions join that one
 * and it is removed when nothing is left to it (tags and custom-field values keep it).
 */
async function moveTo(
  db: Kysely<Database>,
  row: Row & { domain: string },
  target: { domain: string; name: string },
  dryRun: boolean,
): Promise<MovedOrganisation> {
  const run = async (trx: Kysely<Database>) => {
    const existing = await trx
      .selectFrom('organisations')
      .select('id')
      .where('workspace_id', '=', row.workspace_id)
      .where('domain', '=', target.domain)
      .executeTakeFirst();
    const { rows } = await sql<{ count: number }>`
      SELECT count(*)::int AS count FROM sessions
      WHERE workspace_id = ${row.workspace_id} AND organisation_id = ${row.id}`.execute(trx);
    const moved: MovedOrganisation = {
      workspace: row.workspace_id,
      uuid: row.id,
      domain: row.domain,
      to: { ...target, uuid: existing?.id ?? row.id },
      sessions: rows[0]?.count ?? 0,
    };
    if (dryRun) return moved;
    if (!existing) {
      // Its profile changes with its domain: segments look at it again.
      await sql`
        WITH queued AS (${queueForSegments(both(row.workspace_id, row.id, row.id))})
        UPDATE organisations SET domain = ${target.domain}, name = ${target.name}
        WHERE workspace_id = ${row.workspace_id} AND id = ${row.id}`.execute(trx);
      return moved;
    }
    await sql`
      WITH queued AS (${queueForSegments(both(row.workspace_id, existing.id, row.id))})
      UPDATE sessions SET organisation_id = ${existing.id}
      WHERE workspace_id = ${row.workspace_id} AND organisation_id = ${row.id}`.execute(trx);
    await sql`
      DELETE FROM organisations o WHERE o.workspace_id = ${row.workspace_id} AND o.id = ${row.id}
        AND NOT EXISTS (SELECT 1 FROM organisation_tags t
                        WHERE t.workspace_id = o.workspace_id AND t.organisation_id = o.id)
        AND NOT EXISTS (SELECT 1 FROM custom_field_values v
                        WHERE v.workspace_id = o.workspace_id AND v.organisation_id = o.id)
        AND NOT EXISTS (${identifiedVisitors(row)})`.execute(trx);
    return moved;
  };
  return dryRun ? run(db) : db.transaction().execute(run);
}
