import { type Static, Type } from '@sinclair/typebox';
import { ORGANISATION_STATUSES } from '../db/schema.js';

const Str = Type.String();

const OwnerSchema = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  name: Str,
  email: Str,
});

export const OrganisationPatch = Type.Object(
  {
    owner_uuid: Type.Optional(
      Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
        description: 'a member of the workspace, or null for none',
      }),
    ),
    status: Type.Optional(Type.Union(ORGANISATION_STATUSES.map((status) => Type.Literal(status)))),
  },
  { additionalProperties: false },
);
export type OrganisationPatch = Static<typeof OrganisationPatch>;

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
    total_sessions: Type.Integer({ description: 'its attributed sessions (Footfall addition)' }),
    total_time_on_site: Type.String({ description: 'H:MM:SS, hours unbounded' }),
    visitor_locations: Type.Array(Str, { description: '"City, Country" labels' }),
    custom_fields: Type.Record(Type.String(), Type.Unknown()),
    identification: Type.Object(
      {
        method: Type.Union(
          [
            'email_domain',
            'ip_range',
            'network_owner',
            'reverse_dns',
            'registration',
            'unknown',
          ].map((m) => Type.Literal(m)),
          {
            description:
              'How the organisation was found: a business e-mail domain, the operator’s IP ranges, the network owner, the visitor address’s reverse DNS name or its network’s registration (RDAP); unknown for organisations from before this was recorded',
          },
        ),
        evidence: Type.Record(Type.String(), Type.Unknown(), {
          description:
            'What the method went on; its fields are described in the identification docs',
        }),
      },
      { description: 'Beyond the seed: how this organisation was identified' },
    ),
    description: Type.String({
      description: 'Beyond the seed: what the company says it does ("" when unknown)',
    }),
    profile_source: Type.Object(
      {
        directory: Type.Boolean({ description: 'the company directory has an entry for it' }),
        website: Type.Union([Type.String(), Type.Null()], {
          description: 'the homepage its profile was read from, after redirects; null if none',
        }),
        fetched_at: Type.Union([Type.String(), Type.Null()], {
          description: 'ISO 8601: when that page was read',
        }),
      },
      {
        description:
          'Beyond the seed: where the profile comes from; the directory wins field by field',
      },
    ),
    score: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'Beyond the seed: the lead score (contract §17), from the scoring rules',
    }),
    score_reasons: Type.Array(Type.Object({ reason: Str, points: Type.Integer() }), {
      description: 'Beyond the seed: the rules and key pages that gave the score, largest first',
    }),
    owner: Type.Union([OwnerSchema, Type.Null()], {
      description: 'Beyond the seed: the workspace member who owns it, or null',
    }),
    status: Type.Union(
      ORGANISATION_STATUSES.map((status) => Type.Literal(status)),
      {
        description:
          'Beyond the seed: lead (default), customer, competitor or hidden; only leads are listed unless asked',
      },
    ),
  },
  { $id: 'Organisation' },
);
export type Organisation = Static<typeof Organisation>;

export const OrganisationParams = Type.Object({
  workspaceUuid: Type.String({ format: 'uuid' }),
  organisationUuid: Type.String({ format: 'uuid' }),
});
