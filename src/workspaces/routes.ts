import { Type } from '@sinclair/typebox';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { type FieldErrors, fieldError, notFound, unprocessable } from '../http/errors.js';
import { baseUrl } from '../http/links.js';
import { checkPageWindow, PageQuery, PageSchema, paginate } from '../http/pagination.js';
import { errorResponses, Message, UuidParams, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { requireWorkspace } from './access.js';
import { normaliseHostname, normaliseRange } from './filters.js';
import {
  presentFilters,
  presentPrivacy,
  presentTrackerFeatures,
  presentWorkspace,
} from './present.js';
import { deleteWorkspace } from './purge.js';
import {
  CreateWorkspaceBody,
  FiltersBody,
  PrivacyBody,
  PrivacySettings,
  TagBody,
  TrackerFeatures,
  TrackerFeaturesBody,
  UpdateWorkspaceBody,
  Workspace,
  WorkspaceFilters,
} from './schemas.js';
import { defaultWorkspaceName, parseSiteUrl } from './site-url.js';
import {
  addAvailableTag,
  createWorkspace,
  listWorkspaces,
  unlinkWorkspace,
  updateFilters,
  updateTrackerFeatures,
  updateUsageLimit,
} from './store.js';

const tags = ['Workspaces'];
const PROBLEM: Record<string, string> = {
  excluded_ip_ranges: 'an IP address or CIDR range',
  hostnames: 'a hostname, *.domain or *',
};
const WorkspaceRef = Type.Ref(Workspace);

export function workspaceRoutes(app: Api, deps: AppDeps): void {
  const base = (request: Parameters<typeof baseUrl>[0]) => baseUrl(request, deps.config.publicUrl);

  app.get(
    '/v1/workspaces',
    {
      schema: {
        tags,
        summary: 'List your workspaces',
        querystring: PageQuery,
        response: { 200: PageSchema(WorkspaceRef), ...errorResponses(401, 422, 429) },
      },
    },
    async (request) => {
      checkPageWindow(request.query);
      const { page, size } = request.query;
      const { total, rows } = await listWorkspaces(
        deps.db,
        userOf(request),
        (page - 1) * size,
        size,
      );
      const data = rows.map((row) => presentWorkspace(row, base(request)));
      return paginate(request, deps.config.publicUrl, request.query, total, data);
    },
  );

  app.post(
    '/v1/workspaces',
    {
      schema: {
        tags,
        summary: 'Create a workspace (one tracked website) with a new tracking script',
        body: CreateWorkspaceBody,
        response: { 201: Wrapped(WorkspaceRef), ...errorResponses(400, 401, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const url = parseSiteUrl(request.body.url);
      const row = await createWorkspace(deps.db, userOf(request), {
        url,
        name: request.body.name?.trim() || defaultWorkspaceName(url),
        usageLimit: deps.config.defaultUsageLimit,
      });
      reply.status(201);
      return { success: true, data: presentWorkspace(row, base(request)) };
    },
  );

  app.get(
    '/v1/workspaces/:uuid',
    {
      schema: {
        tags,
        summary: 'Get a workspace',
        params: UuidParams,
        response: { 200: Wrapped(WorkspaceRef), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.uuid);
      return { success: true, data: presentWorkspace(row, base(request)) };
    },
  );

  app.patch(
    '/v1/workspaces/:uuid',
    {
      schema: {
        tags,
        summary: "Change a workspace's usage limit",
        params: UuidParams,
        body: UpdateWorkspaceBody,
        response: { 200: Wrapped(WorkspaceRef), ...errorResponses(400, 401, 404, 415, 422, 429) },
      },
    },
    async (request) => {
      let row = await requireWorkspace(deps, request, request.params.uuid);
      if (request.body.usage_limit !== undefined) {
        await updateUsageLimit(deps.db, row.id, request.body.usage_limit);
        row = await requireWorkspace(deps, request, row.id);
      }
      return { success: true, data: presentWorkspace(row, base(request)) };
    },
  );

  app.delete(
    '/v1/workspaces/:uuid',
    {
      schema: {
        tags,
        summary:
          'Delete a workspace (owner): gone at once, its tracking script refused; data purged in the background',
        params: UuidParams,
        response: { 204: { type: 'null' }, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const row = await requireWorkspace(deps, request, request.params.uuid);
      await deleteWorkspace(deps.db, row.id);
      reply.status(204);
    },
  );

  app.post(
    '/v1/workspaces/:uuid/unlink',
    {
      schema: {
        tags,
        summary: "Revoke the workspace's tracking script; recorded data stays",
        params: UuidParams,
        response: { 200: Message, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.uuid);
      await unlinkWorkspace(deps.db, row.id);
      return { success: true, message: 'Workspace unlinked.' };
    },
  );

  app.get(
    '/v1/workspaces/:workspaceUuid/tracker-features',
    {
      schema: {
        tags,
        summary: 'Which of form, click and download tracking are on',
        params: WorkspaceParams,
        response: {
          200: Wrapped(Type.Ref(TrackerFeatures)),
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return { success: true, data: presentTrackerFeatures(row) };
    },
  );

  app.patch(
    '/v1/workspaces/:workspaceUuid/tracker-features',
    {
      schema: {
        tags,
        summary: 'Switch form, click and download tracking on or off',
        params: WorkspaceParams,
        body: TrackerFeaturesBody,
        response: {
          200: Wrapped(Type.Ref(TrackerFeatures)),
          ...errorResponses(400, 401, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      if (!row.tracking_script_id) throw notFound('This workspace has no tracking script.');
      const { form_tracking, click_tracking, download_tracking } = request.body;
      const changes = Object.fromEntries(
        Object.entries({ form_tracking, click_tracking, download_tracking }).filter(
          ([, value]) => value !== undefined,
        ),
      );
      await updateTrackerFeatures(deps.db, row.id, changes);
      return { success: true, data: presentTrackerFeatures({ ...row, ...changes }) };
    },
  );

  const privacy = {
    tags,
    params: WorkspaceParams,
    response: { 200: Wrapped(Type.Ref(PrivacySettings)), ...errorResponses(401, 404, 429) },
  };
  app.get(
    '/v1/workspaces/:workspaceUuid/privacy',
    { schema: { ...privacy, summary: "The workspace's privacy settings" } },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return { success: true, data: presentPrivacy(row) };
    },
  );

  app.patch(
    '/v1/workspaces/:workspaceUuid/privacy',
    {
      schema: {
        ...privacy,
        summary: 'Change privacy settings: honour Global Privacy Control',
        body: PrivacyBody,
        response: { ...privacy.response, ...errorResponses(400, 401, 404, 415, 422, 429) },
      },
    },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const changes =
        request.body.honor_gpc === undefined ? {} : { honor_gpc: request.body.honor_gpc };
      await updateTrackerFeatures(deps.db, row.id, changes);
      return { success: true, data: presentPrivacy({ ...row, ...changes }) };
    },
  );

  const filters = {
    tags,
    params: WorkspaceParams,
    response: { 200: Wrapped(WorkspaceFilters), ...errorResponses(401, 404, 429) },
  };
  app.get(
    '/v1/workspaces/:workspaceUuid/filters',
    {
      schema: {
        ...filters,
        summary: "The workspace's ingest filters: excluded IP ranges and accepted hostnames",
      },
    },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return { success: true, data: presentFilters(row) };
    },
  );

  app.patch(
    '/v1/workspaces/:workspaceUuid/filters',
    {
      schema: {
        ...filters,
        summary: 'Change the excluded IP ranges or the accepted hostnames (null: the default)',
        body: FiltersBody,
        response: { ...filters.response, ...errorResponses(400, 401, 404, 415, 422, 429) },
      },
    },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const errors: FieldErrors = {};
      const check = (field: string, values: string[], normalise: (v: string) => string | null) =>
        values.map((value, i) => {
          const normal = normalise(value);
          if (normal === null) errors[`${field}.${i}`] = [`"${value}" is not ${PROBLEM[field]}`];
          return normal ?? '';
        });
      const { excluded_ip_ranges: ranges, hostnames } = request.body;
      const changes = {
        ...(ranges
          ? {
              excluded_ip_ranges: [...new Set(check('excluded_ip_ranges', ranges, normaliseRange))],
            }
          : {}),
        ...(hostnames !== undefined
          ? {
              hostnames: hostnames && [
                ...new Set(check('hostnames', hostnames, normaliseHostname)),
              ],
            }
          : {}),
      };
      if (Object.keys(errors).length > 0) throw unprocessable(errors);
      await updateFilters(deps.db, row.id, changes);
      return { success: true, data: presentFilters({ ...row, ...changes }) };
    },
  );

  app.post(
    '/v1/workspaces/:workspaceUuid/tags',
    {
      schema: {
        tags,
        summary: "Add a tag to the workspace's available tags",
        params: WorkspaceParams,
        body: TagBody,
        response: {
          200: Wrapped(WorkspaceRef),
          201: Wrapped(WorkspaceRef),
          ...errorResponses(400, 401, 404, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const name = request.body.tag_name.trim();
      if (name.length === 0) throw fieldError('tag_name', 'The tag name field must not be empty.');
      const created = await addAvailableTag(deps.db, row.id, name);
      reply.status(created ? 201 : 200);
      const updated = await requireWorkspace(deps, request, row.id);
      return { success: true, data: presentWorkspace(updated, base(request)) };
    },
  );
}
