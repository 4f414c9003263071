import type { WorkspaceRow } from '../http/workspace.js';
import { defaultHostnames } from './filters.js';
import type {
  Installation,
  PrivacySettings,
  TrackerFeatures,
  Workspace,
  WorkspaceFilters,
} from './schemas.js';
import type { IngestCount } from './store.js';
import { trackingSnippet } from './tracking-script.js';

export function presentWorkspace(row: WorkspaceRow, baseUrl: string): Workspace {
  const scriptId = row.tracking_script_id;
  return {
    uuid: row.id,
    name: row.name,
    url: row.url,
    tracking_script_id: scriptId ?? '',
    tracking_script_snippet: scriptId ? trackingSnippet(baseUrl, scriptId) : '',
    available_tags: row.available_tags,
    status: scriptId ? 'active' : 'inactive',
    usage_limit: String(row.usage_limit),
  };
}

export function presentTrackerFeatures(row: WorkspaceRow): TrackerFeatures {
  return {
    form_tracking: row.form_tracking,
    click_tracking: row.click_tracking,
    download_tracking: row.download_tracking,
  };
}

export const presentPrivacy = (row: WorkspaceRow): PrivacySettings => ({
  honor_gpc: row.honor_gpc,
});

export const presentFilters = (row: WorkspaceRow): WorkspaceFilters => ({
  excluded_ip_ranges: row.excluded_ip_ranges,
  hostnames: row.hostnames ?? defaultHostnames(row.url),
  hostnames_default: row.hostnames === null,
});

/** The installation status from the collectors' counts ('' is the reason of stored events). */
export function presentInstallation(counts: IngestCount[]): Installation {
  const reasons: Record<string, number> = {};
  let last: Date | null = null;
  for (const row of counts) {
    if (row.reason && row.events > 0) reasons[row.reason] = row.events;
    if (!last || row.last_at > last) last = row.last_at;
  }
  return {
    last_event_at: last?.toISOString() ?? null,
    events_24h: counts.find((row) => row.reason === '')?.events ?? 0,
    dropped_24h: {
      total: Object.values(reasons).reduce((sum, n) => sum + n, 0),
      reasons,
    },
  };
}
