import { Type } from '@sinclair/typebox';
import type { Api, AppDeps } from '../http/api.js';
import { fieldError, notFound, unprocessable } from '../http/errors.js';
import { errorResponses, Message, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import type { CustomFieldListeners } from './listeners.js';
import { isProfileKey, readOnlyProblem } from './profile.js';
import { checkRulesAndOptions } from './rules.js';
import { CreateCustomFieldBody, CustomField, KeyParams, UpdateCustomFieldBody } from './schemas.js';
import {
  type CustomFieldChanges,
  type CustomFieldRow,
  createCustomField,
  deleteCustomField,
  findCustomField,
  listCustomFields,
  updateCustomField,
} from './store.js';

const tags = ['Custom fields'];
const CustomFieldRef = Type.Ref(CustomField);

export function customFieldRoutes(app: Api, deps: AppDeps, listeners: CustomFieldListeners): void {
  app.get(
    '/v1/workspaces/:workspaceUuid/custom-fields',
    {
      schema: {
        tags,
        summary: "List the workspace's organisation custom fields",
        params: WorkspaceParams,
        response: { 200: Wrapped(Type.Array(CustomFieldRef)), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const rows = await listCustomFields(deps.db, workspace.id);
      return { success: true, data: rows.map(presentCustomField) };
    },
  );

  app.post(
    '/v1/workspaces/:workspaceUuid/custom-fields',
    {
      schema: {
        tags,
        summary: 'Define a custom field (answers the bare definition)',
        params: WorkspaceParams,
        body: CreateCustomFieldBody,
        response: { 201: CustomFieldRef, ...errorResponses(400, 401, 404, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      if (isProfileKey(request.body.key)) {
        throw fieldError('key', readOnlyProblem(request.body.key));
      }
      const errors = checkRulesAndOptions(request.body.field_rules, request.body.options);
      if (Object.keys(errors).length > 0) throw unprocessable(errors);
      const row = await createCustomField(deps.db, workspace.id, request.body);
      if (!row) throw fieldError('key', 'The key has already been taken in this workspace.');
      reply.status(201);
      return presentCustomField(row);
    },
  );

  app.get(
    '/v1/workspaces/:workspaceUuid/custom-fields/:key',
    {
      schema: {
        tags,
        summary: 'Get one custom field definition (bare, as PATCH answers)',
        params: KeyParams,
        response: { 200: CustomFieldRef, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return presentCustomField(await requireField(deps, workspace.id, request.params.key));
    },
  );

  app.patch(
    '/v1/workspaces/:workspaceUuid/custom-fields/:key',
    {
      schema: {
        tags,
        summary: 'Change a custom field definition (answers the bare definition)',
        params: KeyParams,
        body: UpdateCustomFieldBody,
        response: { 200: CustomFieldRef, ...errorResponses(400, 401, 404, 415, 422, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const current = await requireField(deps, workspace.id, request.params.key);
      const body = request.body;
      const errors = checkRulesAndOptions(body.field_rules, body.options);
      if (Object.keys(errors).length > 0) throw unprocessable(errors);
      const changes: CustomFieldChanges = {
        ...(body.name !== undefined && { name: body.name.trim() }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.group !== undefined && { group: body.group }),
        ...(body.is_visible !== undefined && { is_visible: body.is_visible }),
        // null, like omission, leaves the exposure setting as it is (the seed's rule).
        ...(typeof body.visible_in_spotter === 'boolean' && {
          visible_in_spotter: body.visible_in_spotter,
        }),
        ...(body.field_rules !== undefined && { rules: body.field_rules }),
        ...(body.options !== undefined && { options: body.options }),
      };
      if (Object.keys(changes).length === 0) return presentCustomField(current);
      const updated = await updateCustomField(deps.db, workspace.id, current.key, changes);
      if (!updated) throw notFound('Custom field not found.');
      return presentCustomField(updated);
    },
  );

  app.delete(
    '/v1/workspaces/:workspaceUuid/custom-fields/:key',
    {
      schema: {
        tags,
        summary: 'Delete a custom field definition and its values',
        params: KeyParams,
        response: { 200: Message, ...errorResponses(401, 404, 422, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const field = await requireField(deps, workspace.id, request.params.key);
      if (field.is_system) throw fieldError('key', 'System fields cannot be deleted.');
      await deleteCustomField(deps.db, workspace.id, field.key);
      // Segments naming the field lose its values: computed again by the segment worker.
      await listeners.fieldsChanged(deps.db, workspace.id);
      return { success: true, message: 'Custom field deleted.' };
    },
  );
}

async function requireField(deps: AppDeps, workspaceId: string, key: string) {
  const field = await findCustomField(deps.db, workspaceId, key);
  if (!field) throw notFound('Custom field not found.');
  return field;
}

export function presentCustomField(row: CustomFieldRow): CustomField {
  return {
    identifier: row.identifier,
    key: row.key,
    name: row.name,
    entity_type: 'organisation',
    type: row.type as CustomField['type'],
    description: row.description,
    group: row.group,
    is_visible: row.is_visible,
    source: row.source,
    rules: row.rules as CustomField['rules'],
    is_system: row.is_system,
    options: row.options,
    visible_in_spotter: row.visible_in_spotter,
  };
}
