import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { dashboardLink } from '../http/links.js';
import { loadOrganisations } from '../organisations/read.js';
import { presentSession } from '../sessions/present.js';
import { loadSessions } from '../sessions/query.js';
import type { DeliveryRow } from './store.js';

/** What every channel is made from; the webhook channel sends it as it is. */
export interface Alert {
  event: string;
  test: boolean;
  created_at: string;
  rule: { uuid: string; name: string };
  workspace: { uuid: string; name: string; url: string };
  organisation: ({ uuid: string; name: string; website: string } & Record<string, unknown>) | null;
  session: { views: { url: string }[] } | null;
  /** page.visited: the page that matched. */
  url: string | null;
  segment: { uuid: string; name: string } | null;
  period: { start: string; end: string } | null;
  data: unknown;
  /** The organisation's page in the dashboard (or the workspace's, without one). */
  link: string;
}

// A test send is about an organisation that does not exist, so nobody mistakes it.
const SAMPLE_ORGANISATION = {
  uuid: '00000000-0000-4000-8000-000000000000',
  name: 'Example Organisation (test)',
  website: 'https://example.com',
  industry: 'Software',
};

/**
 * The alert of a delivery as its first attempt sees the data; stored, and sent unchanged
 * on every retry.
 */
export async function renderAlert(
  db: Kysely<Database>,
  base: string,
  row: DeliveryRow,
  rule: { id: string; name: string },
): Promise<Alert> {
  const workspace = await db
    .selectFrom('workspaces')
    .select(['id', 'name', 'url'])
    .where('id', '=', row.workspace_id)
    .executeTakeFirstOrThrow();
  const [organisation] = row.organisation_id
    ? await loadOrganisations(db, row.workspace_id, [row.organisation_id])
    : [];
  const [record] = row.session_id ? await loadSessions(db, row.workspace_id, [row.session_id]) : [];
  const segment = row.segment_id
    ? await db
        .selectFrom('segments')
        .select(['id as uuid', 'name'])
        .where('workspace_id', '=', row.workspace_id)
        .where('id', '=', row.segment_id)
        .executeTakeFirst()
    : undefined;
  const shown = row.test ? SAMPLE_ORGANISATION : (organisation ?? null);
  const sampleSession = { views: [{ url: `${workspace.url.replace(/\/$/, '')}/pricing` }] };
  return {
    event: row.kind,
    test: row.test,
    created_at: row.created_at.toISOString(),
    rule: { uuid: rule.id, name: rule.name },
    workspace: { uuid: workspace.id, name: workspace.name, url: workspace.url },
    organisation: shown as Alert['organisation'],
    session: record ? presentSession(record) : row.test ? sampleSession : null,
    url:
      row.url ??
      (row.test && row.kind === 'page.visited' ? (sampleSession.views[0]?.url ?? null) : null),
    segment: segment ?? null,
    period:
      row.period_start && row.period_end
        ? { start: row.period_start.toISOString(), end: row.period_end.toISOString() }
        : null,
    data: row.data ?? null,
    link: dashboardLink(base, row.workspace_id, organisation?.uuid),
  };
}
