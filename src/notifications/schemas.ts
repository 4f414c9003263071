import { type Static, Type } from '@sinclair/typebox';

export const TRIGGERS = [
  'organisation.visited',
  'segment.entered',
  'page.visited',
  'digest.daily',
  'digest.weekly',
] as const;
export type Trigger = (typeof TRIGGERS)[number];

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const TriggerSchema = Type.Union(
  [
    Type.Literal('organisation.visited'),
    Type.Literal('segment.entered'),
    Type.Literal('page.visited'),
    Type.Literal('digest.daily'),
    Type.Literal('digest.weekly'),
  ],
  { description: 'What sends the alert (contract §15)' },
);

const Filter = Type.Object(
  {
    segment_uuid: Type.Optional(nullable(Type.String({ format: 'uuid' }))),
    url_contains: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 2048 }))),
    owner: Type.Optional(
      nullable(
        Type.String({
          description:
            'only organisations this member owns: a member uuid, or me (stored as the uuid)',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

// One object for the three channel kinds, checked per type in code: a 422 then names the
// missing field (`channel.to`) instead of listing every branch of a union.
const ChannelInput = Type.Object(
  {
    type: Type.Union([Type.Literal('email'), Type.Literal('slack'), Type.Literal('webhook')]),
    to: Type.Optional(
      Type.Array(Type.String({ maxLength: 254 }), {
        maxItems: 20,
        description:
          'email: 1 to 20 addresses (0 to 20 with to_owner: used when there is no owner)',
      }),
    ),
    to_owner: Type.Optional(
      Type.Boolean({ description: "email: to the organisation's owner (contract §17)" }),
    ),
    webhook_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'slack: the incoming-webhook URL (kept secret, shown masked)',
      }),
    ),
    url: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: 'webhook: the receiver' }),
    ),
    secret: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 255,
        description: 'webhook: the signing secret (never returned)',
      }),
    ),
  },
  { additionalProperties: false },
);

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone' });

export const RuleInput = Type.Object({
  name: Name,
  enabled: Type.Optional(Type.Boolean()),
  trigger: TriggerSchema,
  filter: Type.Optional(Filter),
  channel: ChannelInput,
  timezone: Type.Optional(Timezone),
});
export type RuleInput = Static<typeof RuleInput>;

export const RulePatch = Type.Object({
  name: Type.Optional(Name),
  enabled: Type.Optional(Type.Boolean()),
  trigger: Type.Optional(TriggerSchema),
  filter: Type.Optional(Filter),
  channel: Type.Optional(ChannelInput),
  timezone: Type.Optional(Timezone),
});
export type RulePatch = Static<typeof RulePatch>;
export type ChannelInput = Static<typeof ChannelInput>;

export const NotificationRule = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    name: Type.String(),
    enabled: Type.Boolean(),
    trigger: TriggerSchema,
    filter: Type.Object({
      segment_uuid: nullable(Type.String({ format: 'uuid' })),
      url_contains: nullable(Type.String()),
      owner: nullable(Type.String({ format: 'uuid' })),
    }),
    channel: Type.Object(
      {
        type: Type.Union([Type.Literal('email'), Type.Literal('slack'), Type.Literal('webhook')]),
        to: Type.Optional(Type.Array(Type.String())),
        to_owner: Type.Optional(Type.Boolean()),
        webhook_url: Type.Optional(
          Type.String({ description: 'slack: masked, the URL is a secret' }),
        ),
        url: Type.Optional(Type.String()),
        secret_set: Type.Optional(Type.Boolean()),
      },
      { description: 'As given, without secrets: a Slack URL is masked, a secret never shown' },
    ),
    timezone: Type.String(),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { title: 'NotificationRule' },
);

export const RuleParams = Type.Object({
  workspaceUuid: Type.String({ format: 'uuid' }),
  ruleUuid: Type.String({ format: 'uuid' }),
});

export const NotificationDelivery = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    kind: Type.String({ description: 'the trigger that caused it' }),
    test: Type.Boolean(),
    organisation_uuid: nullable(Type.String({ format: 'uuid' })),
    url: nullable(Type.String()),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('delivered'),
      Type.Literal('failed'),
    ]),
    attempts: Type.Integer(),
    last_status_code: nullable(Type.Integer()),
    last_error: Type.String(),
    next_attempt_at: nullable(Type.String()),
    created_at: Type.String(),
    delivered_at: nullable(Type.String()),
  },
  { title: 'NotificationDelivery' },
);
