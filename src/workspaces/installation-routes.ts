import type { Api, AppDeps } from '../http/api.js';
import { errorResponses, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import { presentInstallation } from './present.js';
import { Installation } from './schemas.js';
import { ingestCounts } from './store.js';

/**
 * Whether the tracking script is installed and working: what the collectors received for
 * this workspace lately (each server writes its counts every few seconds, INGEST_TALLY_MS).
 */
export function installationRoutes(app: Api, deps: AppDeps): void {
  app.get(
    '/v1/workspaces/:workspaceUuid/installation',
    {
      schema: {
        tags: ['Workspaces'],
        summary: 'Installation status: the last event received and what was dropped, and why',
        params: WorkspaceParams,
        response: { 200: Wrapped(Installation), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return {
        success: true,
        data: presentInstallation(await ingestCounts(deps.db, workspace.id)),
      };
    },
  );
}
