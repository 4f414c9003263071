import { type RawBuilder, sql } from 'kysely';
import { qualifies } from './qualify.js';

/**
 * The INSERTs (CTEs of the outbox's fan-out: no WITH of their own) of the CRM sync's
 * deliveries, for every enabled connection of the event's workspace whose rules the
 * organisation meets now (the worker asks again before sending):
 * - a company, when an organisation is identified, changes (score, status), enters the
 *   connection's segment or ends a session: at most one pending per organisation, a later
 *   change bumps its `changes` so the worker sends the latest state;
 * - a note, for each ended session;
 * - a contact, for each contact identified (its company comes with it).
 */
export function crmDeliveries(events: RawBuilder<unknown>): RawBuilder<unknown>[] {
  const wanted = (kinds: string[], extra = sql`true`) => sql`
    SELECT DISTINCT ON (d.workspace_id, c.name, d.organisation_id, d.session_id, d.contact_id)
      d.workspace_id, c.name AS integration, d.organisation_id, d.session_id, d.contact_id
    FROM (${events}) d
    JOIN crm_connections c ON c.workspace_id = d.workspace_id AND c.enabled
    JOIN organisations o ON o.workspace_id = d.workspace_id AND o.id = d.organisation_id
    WHERE d.kind = ANY(${kinds}::text[]) AND ${extra} AND ${qualifies()}`;
  return [
    sql`
      INSERT INTO crm_deliveries AS x (workspace_id, integration, kind, organisation_id)
      SELECT DISTINCT w.workspace_id, w.integration, 'company', w.organisation_id
      FROM (${wanted(
        ['organisation.identified', 'organisation.changed', 'session.ended', 'segment.entered'],
        sql`(d.kind <> 'segment.entered' OR d.segment_id = c.segment_id)`,
      )}) w
      ON CONFLICT (workspace_id, integration, organisation_id)
        WHERE kind = 'company' AND status = 'pending'
      DO UPDATE SET changes = x.changes + 1`,
    sql`
      INSERT INTO crm_deliveries (workspace_id, integration, kind, organisation_id, session_id)
      SELECT w.workspace_id, w.integration, 'note', w.organisation_id, w.session_id
      FROM (${wanted(['session.ended'])}) w WHERE w.session_id IS NOT NULL`,
    sql`
      INSERT INTO crm_deliveries (workspace_id, integration, kind, organisation_id, contact_id)
      SELECT w.workspace_id, w.integration, 'contact', w.organisation_id, w.contact_id
      FROM (${wanted(['contact.identified'])}) w WHERE w.contact_id IS NOT NULL
      ON CONFLICT (workspace_id, integration, contact_id)
        WHERE kind = 'contact' AND status = 'pending'
      DO NOTHING`,
  ];
}
