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
 * The workspace a test ping is kept under: the nil UUID, which no workspace has. A ping
 * belongs to no workspace, but every delivery needs one to be distributed by (contract §19).
 */
export const PING_WORKSPACE = '00000000-0000-0000-0000-000000000000';

/**
 * The body of a test ping: the structure of every delivery (so a receiver's parsing is
 * exercised too), about nothing: no workspace, organisation or session.
 */
export function pingBody(createdAt: Date): string {
  return JSON.stringify({
    event: 'ping',
    created_at: createdAt.toISOString(),
    workspace: null,
    organisation: null,
    session: null,
  });
}

/**
 * The body of a delivery (contract §10): the same structure for every kind, with the
 * organisation and session as the API shows them. `event.tracked` carries its one event.
 */
export async function renderBody(db: Kysely<Database>, row: DeliveryRow): Promise<string> {
  // A ping's body is written with it; this only covers a row that somehow lost it.
  if (row.workspace_id === PING_WORKSPACE) return pingBody(row.created_at);
  const workspaceId = row.workspace_id;
  const workspace = await db
    .selectFrom('workspaces')
    .select(['id', 'name', 'url'])
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const [organisation] = row.organisation_id
    ? await loadOrganisations(db, workspaceId, [row.organisation_id])
    : [];
  const [record] = row.session_id ? await loadSessions(db, workspaceId, [row.session_id]) : [];
  const session = record ? presentSession(record, row.event_id ?? undefined) : null;
  const segment = row.segment_id
    ? await db
        .selectFrom('segments')
        .select(['id as uuid', 'name'])
        .where('workspace_id', '=', workspaceId)
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
