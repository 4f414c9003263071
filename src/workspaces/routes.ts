import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { baseUrl } from '../http/links.js';
import { checkPageWindow, PageQuery, PageSchema, paginate } from '../http/pagination.js';
import { errorResponses, Message, UuidParams, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { requireWorkspace, type WorkspaceRow } from '../http/workspace.js';
import { filterRoutes } from './filter-routes.js';
import { presentWorkspace } from './present.js';
import { deleteWorkspace } from './purge.js';
import { CreateWorkspaceBody, TagBody, UpdateWorkspaceBody, Workspace } from './schemas.js';
import { settingRoutes } from './setting-routes.js';
import { defaultWorkspaceName, parseSiteUrl } from './site-url.js';
import {
  addAvailableTag,
  createWorkspace,
  listWorkspaces,
  unlinkWorkspace,
  updateUsageLimit,
} from './store.js';
import { parseTagName } from './tag-name.js';

const tags = ['Workspaces'];
const WorkspaceRef = Type.Ref(Workspace);

/** A workspace as the API answers it: its snippet loads from PUBLIC_URL or the address reached. */
const answer = (deps: AppDeps, request: FastifyRequest, row: WorkspaceRow) => ({
  success: true,
  data: presentWorkspace(row, baseUrl(request, deps.config.publicUrl)),
});

/**
 * Every route of a workspace and its settings, in the order the API reference lists them
 * (its installation status is added by app.ts after the demo workspace).
 */
export function workspaceRoutes(app: Api, deps: AppDeps): void {
  resourceRoutes(app, deps);
  settingRoutes(app, deps);
  filterRoutes(app, deps);
  tagRoutes(app, deps);
}

/** The workspace itself: list, create, read, change, delete, and unlink its script. */
function resourceRoutes(app: Api, deps: AppDeps): void {
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
      const base = baseUrl(request, deps.config.publicUrl);
      const data = rows.map((row) => presentWorkspace(row, base));
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
      return answer(deps, request, row);
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
      return answer(deps, request, row);
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
      return answer(deps, request, row);
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
}

/** The workspace's tag vocabulary, shown with the workspace as available_tags. */
function tagRoutes(app: Api, deps: AppDeps): void {
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
      const created = await addAvailableTag(deps.db, row.id, parseTagName(request.body.tag_name));
      reply.status(created ? 201 : 200);
      const updated = await requireWorkspace(deps, request, row.id);
      return answer(deps, request, updated);
    },
  );
}
