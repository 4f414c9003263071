import { type Kysely, sql } from 'kysely';
import { cachedLookup } from '../db/cached-lookup.js';
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

/**
 * Tracking script id → its workspace, flags and filters, cached briefly: the collector asks
 * on every request, and a change or an unlink may take up to TTL_MS to reach it.
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
  const row = await db
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
    .where('ts.id', '=', id)
    .executeTakeFirst();
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
