import { type Static, Type } from '@sinclair/typebox';
import { PageQuery } from '../http/pagination.js';

/** A person who gave an email address on the site: `identify()` or a submitted form. */
export const Contact = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    email: Type.String(),
    traits: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What identify() sent along, merged over time (later values win)',
    }),
    organisation_uuid: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The organisation of the visit that identified them; null when none',
    }),
    visitor_uuids: Type.Array(Type.String({ format: 'uuid' }), {
      description: 'The visitor ids (browsers) they identified from',
    }),
    first_seen: Type.String({
      description: 'ISO 8601; their first session, earlier visits included',
    }),
    last_seen: Type.String({ description: 'ISO 8601; the end of their latest session' }),
  },
  { $id: 'Contact' },
);
export type Contact = Static<typeof Contact>;

export const ContactsQuery = Type.Object({
  ...PageQuery.properties,
  organisation_uuid: Type.Optional(
    Type.String({ format: 'uuid', description: 'only contacts of this organisation' }),
  ),
  domain: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        "the organisation's domain, or the email address's domain (a subdomain matches its parent)",
    }),
  ),
});

export const ContactParams = Type.Object({
  workspaceUuid: Type.String({ format: 'uuid' }),
  contactUuid: Type.String({ format: 'uuid' }),
});
