import { type RawBuilder, sql } from 'kysely';

/**
 * The INSERT (a CTE of the outbox's fan-out: no WITH of its own) of a pending delivery for
 * every event a workspace's Zapier hooks subscribe to: `new_lead` is
 * organisation.identified, `new_session` session.ended, `contacts_revealed`
 * contact.identified (contract §18). Only leads: customers, competitors and hidden
 * organisations are not handed to sales (§17).
 */
export function zapierDeliveries(events: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    INSERT INTO zapier_deliveries
      (id, workspace_id, hook_id, event, organisation_id, session_id, contact_id)
    SELECT gen_random_uuid(), d.workspace_id, h.id, h.event, d.organisation_id, d.session_id,
      d.contact_id
    FROM (${events}) d
    JOIN zapier_hooks h ON h.workspace_id = d.workspace_id AND h.event = CASE d.kind
      WHEN 'organisation.identified' THEN 'new_lead'
      WHEN 'session.ended' THEN 'new_session'
      WHEN 'contact.identified' THEN 'contacts_revealed' END
    WHERE EXISTS (SELECT 1 FROM organisations o WHERE o.workspace_id = d.workspace_id
      AND o.id = d.organisation_id AND o.status = 'lead')`;
}
