import { type Static, Type } from '@sinclair/typebox';

export const FIELD_TYPES = [
  'text',
  'number',
  'date',
  'boolean',
  'select',
  'multi_select',
  'url',
  'email',
] as const;

/** Rule types a definition may carry; values are checked against them when set. */
export const RULE_TYPES = [
  'required',
  'min_length',
  'max_length',
  'min',
  'max',
  'pattern',
] as const;

const FieldRule = Type.Object({
  type: Type.Union(RULE_TYPES.map((type) => Type.Literal(type))),
  config: Type.Record(Type.String(), Type.Unknown()),
});

const FieldOption = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 255 }),
  label: Type.String({ minLength: 1, maxLength: 255 }),
  color: Type.String({
    pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$',
    description: 'hex colour',
  }),
});

export const CustomField = Type.Object(
  {
    identifier: Type.String({ format: 'uuid' }),
    key: Type.String(),
    name: Type.String(),
    entity_type: Type.Literal('organisation'),
    type: Type.Union(FIELD_TYPES.map((type) => Type.Literal(type))),
    description: Type.String(),
    group: Type.String(),
    is_visible: Type.Boolean(),
    source: Type.String(),
    rules: Type.Array(FieldRule),
    is_system: Type.Boolean(),
    options: Type.Array(FieldOption),
    visible_in_spotter: Type.Boolean(),
  },
  { $id: 'CustomField' },
);
export type CustomField = Static<typeof CustomField>;

const common = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.String({ maxLength: 1000 }),
  group: Type.String({ minLength: 1, maxLength: 255 }),
  is_visible: Type.Boolean(),
  field_rules: Type.Array(FieldRule, { maxItems: 20 }),
  options: Type.Array(FieldOption, { maxItems: 500 }),
};

export const CreateCustomFieldBody = Type.Object({
  key: Type.String({ pattern: '^[a-z][a-z0-9_]{0,254}$' }),
  name: common.name,
  type: Type.Union(FIELD_TYPES.map((type) => Type.Literal(type))),
  description: Type.Optional(common.description),
  group: Type.Optional(common.group),
  is_visible: Type.Optional(common.is_visible),
  visible_in_spotter: Type.Optional(Type.Boolean()),
  field_rules: Type.Optional(common.field_rules),
  options: Type.Optional(common.options),
});
export type CreateCustomFieldBody = Static<typeof CreateCustomFieldBody>;

export const UpdateCustomFieldBody = Type.Object({
  name: Type.Optional(common.name),
  description: Type.Optional(common.description),
  group: Type.Optional(common.group),
  is_visible: Type.Optional(common.is_visible),
  visible_in_spotter: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  field_rules: Type.Optional(common.field_rules),
  options: Type.Optional(common.options),
});
export type UpdateCustomFieldBody = Static<typeof UpdateCustomFieldBody>;

export const KeyParams = Type.Object({
  workspaceUuid: Type.String({ format: 'uuid' }),
  key: Type.String(),
});
