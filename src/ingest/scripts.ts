import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { cachedLookup } from '../db/cached-lookup.js';
import { preparedRows } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { compileFilters, type IngestFilters } from '../workspaces/filters.js';
import { siteDomains } from './source.js';

export interface TrackingScript {
  id: string;
  workspaceId: string;
  revoked: boolean;
  /** The workspace's site URL: Spotter answers its origin only. */
  siteUrl: string;
  /** Browsers sending Global Privacy Control are not tracked. */
  honorGpc: boolean;
  features: { form_tracking: boolean; click_tracking: boolean; download_tracking: boolean };
  /** The workspace's excluded IP ranges and accepted hostnames. */
  filters: IngestFilters;
  /** The registrable domains of the site and its accepted hostnames (sessions' source). */
  siteDomains: string[];
}

/** Why a script no longer takes events: unlinked (410) or its workspace deleted (404). */
export type ScriptGone = 'revoked' | 'deleted';

const SCRIPTS_GONE = 'FF410';

/**
 * SQL for Transaction.lockFirst, in a worker's batch: holds the scripts (a shared advisory
 * lock each, migration 0038; a workspace's deletion then waits for the batch) and raises
 * SCRIPTS_GONE for the scripts of deleted workspaces. An unlinked script is not refused
 * here: its requests in the inbox were acknowledged before the unlink (the append held the
 * script too), so they are stored.
 */
export function lockScripts(ids: string[]): string {
  const list = [...new Set(ids)].map((id) => pg.escapeLiteral(id)).join(', ');
  return `SELECT lock_tracking_scripts(ARRAY[${list}]::text[], keep_unlinked => true)`;
}

/** The scripts lockScripts found gone, when that is what `error` is; null otherwise. */
export function goneScripts(error: unknown): Map<string, ScriptGone> | null {
  const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown };
  if (code !== SCRIPTS_GONE || typeof detail !== 'string') return null;
  return new Map(Object.entries(JSON.parse(detail) as Record<string, ScriptGone>));
}

/**
 * Tracking script id → its workspace, flags and filters, cached briefly: the collector asks
 * on every request, and a flag change may take up to TTL_MS to reach it. An unlink or a
 * delete is seen at once all the same: the inbox's append locks and checks each script.
 */
export class ScriptDirectory {
  static readonly TTL_MS = 2_000;
  readonly find: (id: string) => Promise<TrackingScript | null>;

  constructor(db: Kysely<Database>) {
    this.find = cachedLookup((id) => findTrackingScript(db, id), {
      max: 10_000,
      ttlMs: ScriptDirectory.TTL_MS,
    });
  }
}

export async function findTrackingScript(
  db: Kysely<Database>,
  id: string,
): Promise<TrackingScript | undefined> {
  // Asked by every server every few seconds per busy script: prepared (db/prepared.ts).
  const [row] = await preparedRows(
    db,
    db
      .selectFrom('tracking_scripts as ts')
      .innerJoin('workspaces as w', 'w.id', 'ts.workspace_id')
      .select([
        'ts.id',
        'ts.workspace_id',
        'ts.revoked_at',
        'w.url',
        'w.honor_gpc',
        'w.form_tracking',
        'w.click_tracking',
        'w.download_tracking',
        'w.hostnames',
        sql<string[]>`w.excluded_ip_ranges::text[]`.as('excluded_ip_ranges'),
      ])
      .where('ts.id', '=', id),
  );
  if (!row) return undefined;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    revoked: row.revoked_at !== null,
    siteUrl: row.url,
    honorGpc: row.honor_gpc,
    features: {
      form_tracking: row.form_tracking,
      click_tracking: row.click_tracking,
      download_tracking: row.download_tracking,
    },
    filters: compileFilters(row.url, row.hostnames, row.excluded_ip_ranges),
    siteDomains: siteDomains(row.url, row.hostnames),
  };
}
