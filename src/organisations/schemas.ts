import { type Static, Type } from '@sinclair/typebox';

const Str = Type.String();

export const Organisation = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    name: Str,
    website: Str,
    first_seen: Type.String({ description: 'ISO 8601' }),
    last_seen: Type.String({ description: 'ISO 8601' }),
    profiles: Type.Array(Type.Object({ name: Str, handle: Str, url: Str })),
    tags: Type.Array(Str),
    segments: Type.Array(Type.Object({ uuid: Type.String({ format: 'uuid' }), name: Str })),
    unique_visitor_count: Type.Integer(),
    logo: Str,
    address: Type.Object({
      street: Str,
      address: Str,
      full_address: Str,
      city: Str,
      state: Str,
      street_number: Str,
      postal_code: Str,
      country: Str,
      latitude: Str,
      longitude: Str,
    }),
    founded: Str,
    size: Str,
    industry: Str,
    phone: Str,
    email: Str,
    total_pageviews: Type.Integer(),
    total_time_on_site: Type.String({ description: 'H:MM:SS, hours unbounded' }),
    visitor_locations: Type.Array(Str, { description: '"City, Country" labels' }),
    custom_fields: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'Organisation' },
);
export type Organisation = Static<typeof Organisation>;

export const OrganisationParams = Type.Object({
  workspaceUuid: Type.String({ format: 'uuid' }),
  organisationUuid: Type.String({ format: 'uuid' }),
});

export const OrganisationFieldParams = Type.Object({
  workspaceUuid: Type.String({ format: 'uuid' }),
  organisationUuid: Type.String({ format: 'uuid' }),
  key: Type.String(),
});
