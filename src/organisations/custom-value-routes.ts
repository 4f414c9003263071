import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { CustomFieldListeners } from '../custom-fields/listeners.js';
import { presentProfile, presentValue } from '../custom-fields/present.js';
import { isProfileKey, readOnlyProblem } from '../custom-fields/profile.js';
import {
  CustomFieldValue,
  KEY_PATTERN,
  MAX_VALUES_PER_PATCH,
  OrganisationValueParams,
  OrganisationValuesParams,
  SetValueBody,
  SetValuesBody,
} from '../custom-fields/schemas.js';
import {
  type CustomFieldRow,
  clearCustomValue,
  defineFieldsForValues,
  findCustomFields,
  findOrganisationProfile,
  listCustomValues,
  setCustomValues,
} from '../custom-fields/store.js';
import {
  checkValue,
  inferType,
  isEmptyValue,
  isRequired,
  nameFromKey,
} from '../custom-fields/values.js';
import type { Database } from '../db/schema.js';
import type { Api, AppDeps } from '../http/api.js';
import { type FieldErrors, fieldError, notFound, unprocessable } from '../http/errors.js';
import { errorResponses, Wrapped } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import { loadOrganisations } from './read.js';
import { Organisation } from './schemas.js';

const tags = ['Custom fields'];
const ValueRef = Type.Ref(CustomFieldValue);
const KEY = new RegExp(KEY_PATTERN);

/** An organisation's custom-field values (contract §8 and §13). */
export function customValueRoutes(app: Api, deps: AppDeps, listeners: CustomFieldListeners): void {
  app.get(
    '/v1/workspaces/:workspaceUuid/organisations/:organisationUuid/custom-fields',
    {
      schema: {
        tags,
        summary: "An organisation's custom values, then its read-only profile fields",
        params: OrganisationValuesParams,
        response: { 200: Type.Array(ValueRef), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const organisationId = request.params.organisationUuid;
      const profile = await findOrganisationProfile(deps.db, workspace.id, organisationId);
      if (!profile) throw notFound('Organisation not found.');
      const values = await listCustomValues(deps.db, workspace.id, organisationId);
      return [
        ...values.map((row) => presentValue(row, row.value, row.updated_at)),
        ...presentProfile(profile),
      ];
    },
  );

  app.put(
    '/v1/workspaces/:workspaceUuid/organisations/:organisationUuid/custom-fields/:key',
    {
      schema: {
        tags,
        summary:
          "Set an organisation's value of a custom field (checked by type, options, rules); " +
          'answers the bare value object',
        params: OrganisationValueParams,
        body: SetValueBody,
        response: { 200: ValueRef, ...errorResponses(400, 401, 404, 415, 422, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const { organisationUuid: organisationId, key } = request.params;
      return deps.db.transaction().execute(async (trx) => {
        await lockOrganisation(trx, workspace.id, organisationId);
        if (isProfileKey(key)) throw fieldError('key', readOnlyProblem(key));
        const [field] = await findCustomFields(trx, workspace.id, [key], { lock: true });
        if (!field) throw notFound('Custom field not found.');
        const checked = checkValue(field, request.body.value);
        if ('problem' in checked) throw fieldError('value', checked.problem);
        const set = await setCustomValues(trx, workspace.id, organisationId, [
          { key, value: checked.value },
        ]);
        await listeners.valuesChanged(trx, workspace.id, [organisationId]);
        return presentValue(field, checked.value, set.get(key) as Date);
      });
    },
  );

  app.patch(
    '/v1/workspaces/:workspaceUuid/organisations/:organisationUuid/custom-fields',
    {
      schema: {
        tags,
        summary: `Set 1 to ${MAX_VALUES_PER_PATCH} values at once, all or none; a new key gets a definition`,
        description:
          'Each key with a definition is checked as PUT checks it. A key without one is ' +
          'defined (name from the key, group `custom`, source `manual`), its type taken from ' +
          'the value. Any refused key → 422 naming `custom_fields.<key>`, and nothing is ' +
          'stored, definitions included.',
        params: OrganisationValuesParams,
        body: SetValuesBody,
        response: {
          200: Wrapped(Type.Array(ValueRef)),
          ...errorResponses(400, 401, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const organisationId = request.params.organisationUuid;
      const entries = Object.entries(request.body.custom_fields);
      if (entries.length === 0 || entries.length > MAX_VALUES_PER_PATCH) {
        throw fieldError(
          'custom_fields',
          `Send between 1 and ${MAX_VALUES_PER_PATCH} fields at a time (${entries.length} sent).`,
        );
      }
      refuse(checkEntries(entries));
      const data = await deps.db.transaction().execute(async (trx) => {
        await lockOrganisation(trx, workspace.id, organisationId);
        const { fields, errors } = await fieldsFor(trx, workspace.id, entries);
        const checked = entries.flatMap(([key, value]) => {
          const field = fields.get(key);
          if (!field) return [];
          const result = checkValue(field, value);
          if ('value' in result) return [{ key, value: result.value }];
          errors[`custom_fields.${key}`] = [ofKey(key, result.problem)];
          return [];
        });
        // Thrown inside the transaction: the fields defined above are rolled back too.
        refuse(errors);
        const set = await setCustomValues(trx, workspace.id, organisationId, checked);
        await listeners.valuesChanged(trx, workspace.id, [organisationId]);
        return checked.map(({ key, value }) =>
          presentValue(fields.get(key) as CustomFieldRow, value, set.get(key) as Date),
        );
      });
      return { success: true, data };
    },
  );

  app.delete(
    '/v1/workspaces/:workspaceUuid/organisations/:organisationUuid/custom-fields/:key',
    {
      schema: {
        tags,
        summary: "Clear an organisation's value of a custom field",
        params: OrganisationValueParams,
        response: {
          200: Wrapped(Type.Ref(Organisation)),
          ...errorResponses(401, 404, 422, 429),
        },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const { organisationUuid: organisationId, key } = request.params;
      await deps.db.transaction().execute(async (trx) => {
        await lockOrganisation(trx, workspace.id, organisationId);
        if (isProfileKey(key)) throw fieldError('key', readOnlyProblem(key));
        const [field] = await findCustomFields(trx, workspace.id, [key], { lock: true });
        if (!field) throw notFound('Custom field not found.');
        if (isRequired(field)) {
          throw fieldError('value', 'The value is required and cannot be cleared.');
        }
        await clearCustomValue(trx, workspace.id, organisationId, field.key);
        await listeners.valuesChanged(trx, workspace.id, [organisationId]);
      });
      const [organisation] = await loadOrganisations(deps.db, workspace.id, [organisationId]);
      if (!organisation) throw notFound('Organisation not found.');
      return { success: true, data: organisation };
    },
  );
}

/**
 * The organisation, key-share locked for the transaction (a deletion meanwhile waits
 * rather than failing the value's foreign key), or 404.
 */
async function lockOrganisation(trx: Kysely<Database>, workspaceId: string, id: string) {
  const profile = await findOrganisationProfile(trx, workspaceId, id, { lock: true });
  if (!profile) throw notFound('Organisation not found.');
}

/** What is wrong with a bulk PATCH's keys and values before the database is asked. */
function checkEntries(entries: [string, unknown][]): FieldErrors {
  const errors: FieldErrors = {};
  for (const [key, value] of entries) {
    const problem = !KEY.test(key)
      ? 'The key must start with a lower-case letter and hold only a-z, 0-9 and _ ' +
        '(at most 255 characters).'
      : isProfileKey(key)
        ? readOnlyProblem(key)
        : isEmptyValue(value)
          ? `The value of ${key} must not be empty; to clear it, send DELETE …/custom-fields/${key}.`
          : null;
    if (problem) errors[`custom_fields.${key}`] = [problem];
  }
  return errors;
}

/**
 * The definition of every key, those missing made with a type taken from the value, all
 * key-share locked so that none can be deleted before the values are stored; and the keys
 * for which none could be made.
 */
async function fieldsFor(
  trx: Kysely<Database>,
  workspaceId: string,
  entries: [string, unknown][],
): Promise<{ fields: Map<string, CustomFieldRow>; errors: FieldErrors }> {
  const keys = entries.map(([key]) => key);
  const fields = new Map(
    (await findCustomFields(trx, workspaceId, keys, { lock: true })).map((f) => [f.key, f]),
  );
  const errors: FieldErrors = {};
  const missing = entries.flatMap(([key, value]) => {
    if (fields.has(key)) return [];
    const type = inferType(value);
    if (type) return [{ key, name: nameFromKey(key), type }];
    errors[`custom_fields.${key}`] = [
      `${key} has no definition, and a field is made only for text, a number, true or ` +
        'false: define a select or multi_select field first (POST …/custom-fields).',
    ];
    return [];
  });
  for (const field of await defineFieldsForValues(trx, workspaceId, missing)) {
    fields.set(field.key, field);
  }
  // Keys another request defined meanwhile: theirs stands, and the value is checked by it.
  const raced = missing.filter(({ key }) => !fields.has(key)).map(({ key }) => key);
  for (const field of await findCustomFields(trx, workspaceId, raced, { lock: true })) {
    fields.set(field.key, field);
  }
  for (const key of raced) {
    if (!fields.has(key)) errors[`custom_fields.${key}`] = [`${key} was deleted meanwhile.`];
  }
  return { fields, errors };
}

function refuse(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw unprocessable(errors);
}

/** "The value must be a number." → "The value of budget must be a number." */
const ofKey = (key: string, problem: string) =>
  problem.replace(/^The value /, `The value of ${key} `);
