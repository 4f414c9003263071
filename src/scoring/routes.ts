import { Type } from '@sinclair/typebox';
import type { Api, AppDeps } from '../http/api.js';
import { errorResponses, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import {
  checkExcludedDomains,
  listExcludedDomains,
  MAX_EXCLUDED_DOMAINS,
  replaceExcludedDomains,
} from './excluded-domains.js';
import { previewScores } from './score.js';
import {
  loadScoring,
  requireScoring,
  resetScoring,
  ScoringInput,
  ScoringSchema,
  saveScoring,
} from './settings.js';

const tags = ['Lead scoring'];
/** The preview counts leads above this score (contract §17's dashboard: "above 60"). */
const PREVIEW_THRESHOLD = 60;

const ExcludedDomains = Type.Object(
  {
    domains: Type.Array(Type.String(), { description: 'registrable domains, sorted' }),
  },
  { title: 'ExcludedDomains' },
);

/** Contract §17: the workspace's scoring rules and key pages, and its excluded domains. */
export function scoringRoutes(app: Api, deps: AppDeps): void {
  app.get(
    '/v1/workspaces/:workspaceUuid/scoring',
    {
      schema: {
        tags,
        summary: 'The lead scoring rules and key pages (the defaults until an admin saves)',
        params: WorkspaceParams,
        response: { 200: Wrapped(ScoringSchema), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return { success: true, data: await loadScoring(deps.db, workspace.id) };
    },
  );

  app.put(
    '/v1/workspaces/:workspaceUuid/scoring',
    {
      schema: {
        tags,
        summary:
          'Replace the lead scoring rules and key pages (admins); scores follow within a minute',
        description:
          'Score = clamp(0, 100, Σ points of the rules an organisation matches + Σ points of each key page it viewed in the last 30 days). Rules take the segment filter grammar, every field but score.',
        params: WorkspaceParams,
        body: ScoringInput,
        response: {
          200: Wrapped(ScoringSchema),
          ...errorResponses(400, 401, 403, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      await requireScoring(deps.db, workspace.id, request.body);
      await saveScoring(deps.db, workspace.id, request.body);
      return { success: true, data: await loadScoring(deps.db, workspace.id) };
    },
  );

  app.delete(
    '/v1/workspaces/:workspaceUuid/scoring',
    {
      schema: {
        tags,
        summary: 'Go back to the default scoring (admins); scores follow within a minute',
        params: WorkspaceParams,
        response: { 200: Wrapped(ScoringSchema), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      await resetScoring(deps.db, workspace.id);
      return { success: true, data: await loadScoring(deps.db, workspace.id) };
    },
  );

  app.post(
    '/v1/workspaces/:workspaceUuid/scoring/preview',
    {
      schema: {
        tags,
        summary: 'How many leads would score above 60 with these rules (nothing is saved)',
        params: WorkspaceParams,
        body: ScoringInput,
        response: {
          200: Wrapped(
            Type.Object({
              threshold: Type.Integer(),
              above: Type.Integer({ description: 'leads that would score above the threshold' }),
              leads: Type.Integer({ description: 'all leads' }),
            }),
          ),
          ...errorResponses(400, 401, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const scoring = await requireScoring(deps.db, workspace.id, request.body);
      const counts = await previewScores(deps.db, workspace.id, scoring, PREVIEW_THRESHOLD);
      return { success: true, data: { threshold: PREVIEW_THRESHOLD, ...counts } };
    },
  );

  app.get(
    '/v1/workspaces/:workspaceUuid/excluded-domains',
    {
      schema: {
        tags,
        summary: 'Domains whose organisations are hidden (own domains, customers)',
        params: WorkspaceParams,
        response: { 200: Wrapped(ExcludedDomains), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return { success: true, data: { domains: await listExcludedDomains(deps.db, workspace.id) } };
    },
  );

  app.put(
    '/v1/workspaces/:workspaceUuid/excluded-domains',
    {
      schema: {
        tags,
        summary: 'Replace the excluded domains (admins, up to 10,000)',
        description:
          'Domains, www. names or URLs, each kept as its registrable domain. Organisations of those domains (and their subdomains) become hidden now and when they arrive; a domain taken off brings back what it hid.',
        params: WorkspaceParams,
        body: Type.Object({
          domains: Type.Array(Type.String({ maxLength: 2048 }), {
            maxItems: MAX_EXCLUDED_DOMAINS,
          }),
        }),
        response: {
          200: Wrapped(
            Type.Object({
              domains: Type.Array(Type.String()),
              hidden: Type.Integer({ description: 'organisations hidden by this change' }),
              shown: Type.Integer({ description: 'organisations it brought back' }),
            }),
          ),
          ...errorResponses(400, 401, 403, 404, 413, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const domains = checkExcludedDomains(request.body.domains);
      const counts = await replaceExcludedDomains(deps.db, workspace.id, domains);
      return { success: true, data: { domains, ...counts } };
    },
  );
}
