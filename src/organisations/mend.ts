import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/** What the network owner now says of an organisation's network. */
export interface NetworkVerdict {
  organisation: boolean;
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

export interface MendReport {
  dry_run: boolean;
  organisations: MendedOrganisation[];
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
    if (verdict.organisation) continue;
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
