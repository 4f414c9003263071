import { Type } from '@sinclair/typebox';
import { TRACKED_EVENT_TYPES } from '../db/event-types.js';
import { PageQuery } from '../http/pagination.js';

const Pair = Type.Object({ name: Type.String(), value: Type.String() });

export const SessionEvent = Type.Object(
  {
    event_type: Type.Union(TRACKED_EVENT_TYPES.map((type) => Type.Literal(type))),
    url: Type.String(),
    triggered_at: Type.String({ format: 'date-time' }),
    time_on_page: Type.Optional(Type.Integer({ description: 'pageview: seconds on the page' })),
    form_id: Type.Optional(Type.String()),
    form_name: Type.Optional(Type.String()),
    time_spent: Type.Optional(Type.Integer({ description: 'form events: seconds in the form' })),
    fields: Type.Optional(Type.Array(Pair)),
    name: Type.Optional(Type.String({ description: 'custom: the event name' })),
    properties: Type.Optional(Type.Array(Pair)),
  },
  { $id: 'SessionEvent', description: 'Fields that do not apply to the event_type are omitted.' },
);

export const Session = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    organisation_uuid: Type.String({ format: 'uuid' }),
    visitor_uuid: Type.String({ format: 'uuid' }),
    started_at: Type.String({ format: 'date-time' }),
    ended_at: Type.String({ format: 'date-time' }),
    location: Type.Object({
      country: Type.String(),
      state: Type.String(),
      city: Type.String(),
      latitude: Type.Number(),
      longitude: Type.Number(),
    }),
    browser: Type.String(),
    referrer: Type.String(),
    source: Type.String({
      description:
        "Where the visit came from: the landing page's utm_source (lower case), else the " +
        "referrer's registrable domain, else `direct` (docs/api.md, Sessions)",
    }),
    device_type: Type.String(),
    views: Type.Array(
      Type.Object({
        visited_at: Type.String({ format: 'date-time' }),
        time_on_page: Type.Integer(),
        url: Type.String(),
      }),
    ),
    events: Type.Array(Type.Ref(SessionEvent)),
  },
  { $id: 'Session' },
);

const day = (description: string) =>
  Type.Optional(Type.String({ description: `${description} (YYYY-MM-DD, UTC)` }));

const common = {
  ...PageQuery.properties,
  date: day('one day; not with date_from or date_to'),
  date_from: day('first day, inclusive'),
  date_to: day('last day, inclusive; default today'),
  url: Type.Optional(
    Type.String({ maxLength: 2048, description: 'a view or event URL contains this (any case)' }),
  ),
  referrer: Type.Optional(
    Type.String({ maxLength: 2048, description: 'the referrer contains this (any case)' }),
  ),
  visitor_uuid: Type.Optional(
    Type.String({ format: 'uuid', description: "that visitor's sessions" }),
  ),
};

export const SessionsQuery = Type.Object({
  ...common,
  segmentUuid: Type.Optional(Type.String({ description: 'only organisations in this segment' })),
});

export const OrganisationSessionsQuery = Type.Object(common);
