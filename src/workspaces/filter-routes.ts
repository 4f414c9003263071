import type { Api, AppDeps } from '../http/api.js';
import { type FieldErrors, unprocessable } from '../http/errors.js';
import { errorResponses, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import { normaliseHostname, normaliseRange } from './filters.js';
import { presentFilters } from './present.js';
import { FiltersBody, WorkspaceFilters } from './schemas.js';
import { updateFilters } from './store.js';

const tags = ['Workspaces'];
const PROBLEM: Record<string, string> = {
  excluded_ip_ranges: 'an IP address or CIDR range',
  hostnames: 'a hostname, *.domain or *',
};

/** The ingest filters: whose visits are not tracked, and which hosts' pages may send events. */
export function filterRoutes(app: Api, deps: AppDeps): void {
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
}
