import { Type } from '@sinclair/typebox';
import type { Api, AppDeps } from '../http/api.js';
import { errorResponses, WorkspaceParams } from '../http/schemas.js';
import { requireWorkspace } from '../workspaces/access.js';
import { listSegments } from './store.js';

export const Segment = Type.Object(
  { uuid: Type.String({ format: 'uuid' }), name: Type.String() },
  { $id: 'Segment' },
);

export function segmentRoutes(app: Api, deps: AppDeps): void {
  app.get(
    '/v1/workspaces/:workspaceUuid/segments',
    {
      schema: {
        tags: ['Segments'],
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
}
