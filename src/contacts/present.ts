import type { Contact } from './schemas.js';
import type { ContactRow } from './store.js';

/** A contact as the API shows it (also a Zapier hook's contacts_revealed body). */
export const presentContact = (row: ContactRow): Contact => ({
  uuid: row.id,
  email: row.email,
  traits: row.traits,
  organisation_uuid: row.organisation_id,
  visitor_uuids: row.visitor_ids,
  first_seen: row.first_seen.toISOString(),
  last_seen: row.last_seen.toISOString(),
});
