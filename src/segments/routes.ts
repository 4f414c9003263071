import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Api, AppDeps } from '../http/api.js';
import { notFound, unprocessable } from '../http/errors.js';
import { errorResponses, Message, WorkspaceParams } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import { FiltersInput, FiltersSchema, requireFilters } from './filters.js';
import { deleteSegment, findSegment, listSegments, saveSegment } from './store.js';

export const Segment = Type.Object(
  { uuid: Type.String({ format: 'uuid' }), name: Type.String() },
  { $id: 'Segment' },
);

export const SegmentWithFilters = Type.Object(
  { uuid: Type.String({ format: 'uuid' }), name: Type.String(), filters: Type.Ref(FiltersSchema) },
  { $id: 'SegmentWithFilters' },
);

const SegmentParams = Type.Object({
  workspaceUuid: Type.String({ format: 'uuid' }),
  segmentUuid: Type.String({ format: 'uuid' }),
});

const Name = Type.String({ minLength: 1, maxLength: 255 });
const tags = ['Segments'];

export function segmentRoutes(app: Api, deps: AppDeps): void {
  const checkedName = (name: string) => {
    const trimmed = name.trim();
    if (!trimmed) throw unprocessable({ name: ['The name field must not be empty.'] });
    return trimmed;
  };
  const present = (row: { id: string; name: string; filters: unknown }) => ({
    uuid: row.id,
    name: row.name,
    filters: row.filters,
  });
  const requireSegment = async (
    request: FastifyRequest,
    params: { workspaceUuid: string; segmentUuid: string },
  ) => {
    const workspace = await requireWorkspace(deps, request, params.workspaceUuid);
    const segment = await findSegment(deps.db, workspace.id, params.segmentUuid);
    if (!segment) throw notFound('Segment not found.');
    return { workspaceId: workspace.id, segment };
  };

  app.get(
    '/v1/workspaces/:workspaceUuid/segments',
    {
      schema: {
        tags,
        summary: "List the workspace's segments (a bare array, ordered by name)",
        params: WorkspaceParams,
        response: { 200: Type.Array(Type.Ref(Segment)), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const rows = await listSegments(deps.db, workspace.id);
      return rows.map((row) => ({ uuid: row.id, name: row.name }));
    },
  );

  app.post(
    '/v1/workspaces/:workspaceUuid/segments',
    {
      schema: {
        tags,
        summary: 'Save a segment; its members are computed before the answer',
        params: WorkspaceParams,
        body: Type.Object({ name: Name, filters: FiltersInput }),
        response: {
          201: Type.Ref(SegmentWithFilters),
          ...errorResponses(400, 401, 404, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const name = checkedName(request.body.name);
      const filters = await requireFilters(deps.db, workspace.id, request.body.filters);
      const saved = await saveSegment(deps.db, workspace.id, { name, filters });
      if (!saved) throw new Error('The segment was not saved.');
      reply.status(201);
      return present(saved);
    },
  );

  app.get(
    '/v1/workspaces/:workspaceUuid/segments/:segmentUuid',
    {
      schema: {
        tags,
        summary: 'Get one segment with its filters',
        params: SegmentParams,
        response: { 200: Type.Ref(SegmentWithFilters), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => present((await requireSegment(request, request.params)).segment),
  );

  app.patch(
    '/v1/workspaces/:workspaceUuid/segments/:segmentUuid',
    {
      schema: {
        tags,
        summary: 'Rename a segment or change its filters (members are computed again)',
        params: SegmentParams,
        body: Type.Object({
          name: Type.Optional(Name),
          filters: Type.Optional(FiltersInput),
        }),
        response: {
          200: Type.Ref(SegmentWithFilters),
          ...errorResponses(400, 401, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const { workspaceId, segment } = await requireSegment(request, request.params);
      const { body } = request;
      const name = body.name === undefined ? undefined : checkedName(body.name);
      const filters =
        body.filters === undefined
          ? undefined
          : await requireFilters(deps.db, workspaceId, body.filters);
      if (name === undefined && filters === undefined) return present(segment);
      const saved = await saveSegment(deps.db, workspaceId, { id: segment.id, name, filters });
      if (!saved) throw notFound('Segment not found.');
      return present(saved);
    },
  );

  app.delete(
    '/v1/workspaces/:workspaceUuid/segments/:segmentUuid',
    {
      schema: {
        tags,
        summary: 'Delete a segment',
        params: SegmentParams,
        response: { 200: Message, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const { workspaceId, segment } = await requireSegment(request, request.params);
      if (!(await deleteSegment(deps.db, workspaceId, segment.id))) {
        throw notFound('Segment not found.');
      }
      return { success: true, message: 'Segment deleted.' };
    },
  );
}
