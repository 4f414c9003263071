import { type Static, Type } from '@sinclair/typebox';
import { MAX_EXCLUDED_RANGES, MAX_HOSTNAMES } from './filters.js';

export const Workspace = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    name: Type.String(),
    url: Type.String(),
    tracking_script_id: Type.String({ description: '"" after unlink' }),
    tracking_script_snippet: Type.String({
      description: 'HTML to paste into every page; "" after unlink',
    }),
    available_tags: Type.Array(Type.String()),
    status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]),
    usage_limit: Type.String({
      description: 'New organisations per calendar month (UTC), as a decimal string',
    }),
  },
  { $id: 'Workspace' },
);
export type Workspace = Static<typeof Workspace>;

export const TrackerFeatures = Type.Object(
  {
    form_tracking: Type.Boolean(),
    click_tracking: Type.Boolean(),
    download_tracking: Type.Boolean(),
  },
  { $id: 'TrackerFeatures' },
);
export type TrackerFeatures = Static<typeof TrackerFeatures>;

export const PrivacySettings = Type.Object(
  {
    honor_gpc: Type.Boolean({
      description:
        'Browsers sending Global Privacy Control (Sec-GPC: 1, navigator.globalPrivacyControl) are not tracked',
    }),
  },
  { $id: 'PrivacySettings' },
);
export type PrivacySettings = Static<typeof PrivacySettings>;

/** What the collectors received for a workspace lately: GET …/installation. */
export const Installation = Type.Object({
  last_event_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'the last event received in the last two days, stored or dropped; null: none',
  }),
  events_24h: Type.Integer({ description: 'events stored in the last 24 hours' }),
  dropped_24h: Type.Object({
    total: Type.Integer(),
    reasons: Type.Record(Type.String(), Type.Integer(), {
      description:
        'bot, gpc, excluded_ip_range, foreign_hostname, feature_disabled: events not stored, and why',
    }),
  }),
});
export type Installation = Static<typeof Installation>;

export const PrivacyBody = Type.Object({ honor_gpc: Type.Optional(Type.Boolean()) });

export const WorkspaceFilters = Type.Object({
  excluded_ip_ranges: Type.Array(Type.String(), {
    description:
      'Addresses and CIDR ranges whose visits are not tracked (your own office), in CIDR form',
  }),
  hostnames: Type.Array(Type.String(), {
    description:
      'Hosts whose pages may send events: exact hosts, `*.example.com` for its subdomains, `*` for any',
  }),
  hostnames_default: Type.Boolean({
    description: 'true while hostnames is the default: the site URL’s host and its www. twin',
  }),
});
export type WorkspaceFilters = Static<typeof WorkspaceFilters>;

export const FiltersBody = Type.Object({
  excluded_ip_ranges: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_EXCLUDED_RANGES }),
  ),
  hostnames: Type.Optional(
    Type.Union(
      [Type.Array(Type.String({ maxLength: 255 }), { maxItems: MAX_HOSTNAMES }), Type.Null()],
      {
        description: 'null restores the default',
      },
    ),
  ),
});

export const CreateWorkspaceBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'The tracked site, http or https',
  }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});

export const UpdateWorkspaceBody = Type.Object({
  usage_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
});

export const TrackerFeaturesBody = Type.Object({
  form_tracking: Type.Optional(Type.Boolean()),
  click_tracking: Type.Optional(Type.Boolean()),
  download_tracking: Type.Optional(Type.Boolean()),
});

export const TagBody = Type.Object({
  tag_name: Type.String({ minLength: 1, maxLength: 255 }),
});
