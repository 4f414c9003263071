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
export type FieldType = (typeof FIELD_TYPES)[number];

/** A key as definitions take it, also checked for keys given in a bulk value PATCH. */
export const KEY_PATTERN = '^[a-z][a-z0-9_]{0,254}$';

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
  key: Type.String({ pattern: KEY_PATTERN }),
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

const FieldTypeSchema = Type.Union(FIELD_TYPES.map((type) => Type.Literal(type)));

/** One value of one organisation, as the hosted service shows it (contract §13). */
export const CustomFieldValue = Type.Object(
  {
    field_identifier: Type.String({
      description:
        "The definition's `identifier` (a UUID) for a custom field; the key itself for a " +
        'profile field, which has no definition',
    }),
    field_key: Type.String(),
    field_type: FieldTypeSchema,
    value: Type.Unknown({
      description:
        "As the field's type: string, number, boolean, `YYYY-MM-DD`, an option key, a list " +
        'of option keys; profile fields are strings, `""` when unknown',
    }),
    source: Type.Union([Type.Literal('manual'), Type.Literal('fixed')], {
      description:
        "`manual`: set through the API; `fixed`: the organisation's own profile field " +
        '(read-only)',
    }),
    updated_at: Type.String({
      description:
        'ISO 8601. When the value was last set; for a profile field, when the company ' +
        "directory last updated it (the organisation's creation when it has no profile)",
    }),
  },
  { $id: 'CustomFieldValue' },
);
export type CustomFieldValue = Static<typeof CustomFieldValue>;

export const OrganisationValuesParams = Type.Object({
  workspaceUuid: Type.String({ format: 'uuid' }),
  organisationUuid: Type.String({ format: 'uuid' }),
});

export const OrganisationValueParams = Type.Object({
  ...OrganisationValuesParams.properties,
  key: Type.String(),
});

export const SetValueBody = Type.Object({
  value: Type.Unknown({ description: "Checked against the field's type, options and rules" }),
});

/** Most keys one bulk PATCH may set (contract §13). */
export const MAX_VALUES_PER_PATCH = 50;

export const SetValuesBody = Type.Object({
  custom_fields: Type.Record(Type.String(), Type.Unknown(), {
    description:
      `1 to ${MAX_VALUES_PER_PATCH} keys, each set to a value that is not empty (\`""\`, ` +
      '`null` and `[]` are refused: clear a value with DELETE). A key without a definition ' +
      'gets one, its type taken from the value: boolean, number, `YYYY-MM-DD` date, http(s) ' +
      'URL, e-mail address, else text. All are stored or none is.',
  }),
});
