import type { Kysely, Selectable } from 'kysely';
import type { Database, WebhookDeliveryTable } from '../db/schema.js';
import { loadOrganisations } from '../organisations/read.js';
import { presentSession } from '../sessions/present.js';
import { loadSessions } from '../sessions/query.js';

export type DeliveryRow = Pick<
  Selectable<WebhookDeliveryTable>,
  | 'workspace_id'
  | 'event'
  | 'organisation_id'
  | 'session_id'
  | 'event_id'
  | 'segment_id'
  | 'created_at'
>;

/**
 * The body of a delivery (contract §10): the same structure for every kind, with the
 * organisation and session as the API shows them. `event.tracked` carries its one event.
 */
export async function renderBody(db: Kysely<Database>, row: DeliveryRow): Promise<string> {
  const workspace = await db
    .selectFrom('workspaces')
    .select(['id', 'name', 'url'])
    .where('id', '=', row.workspace_id)
    .executeTakeFirstOrThrow();
  const [organisation] = row.organisation_id
    ? await loadOrganisations(db, row.workspace_id, [row.organisation_id])
    : [];
  const [record] = row.session_id ? await loadSessions(db, row.workspace_id, [row.session_id]) : [];
  const session = record ? presentSession(record, row.event_id ?? undefined) : null;
  const segment = row.segment_id
    ? await db
        .selectFrom('segments')
        .select(['id as uuid', 'name'])
        .where('workspace_id', '=', row.workspace_id)
        .where('id', '=', row.segment_id)
        .executeTakeFirst()
    : undefined;
  return JSON.stringify({
    event: row.event,
    created_at: row.created_at.toISOString(),
    workspace: { uuid: workspace.id, name: workspace.name, url: workspace.url },
    organisation: organisation ?? null,
    session,
    ...(row.event === 'segment.entered' && { segment: segment ?? null }),
  });
}
