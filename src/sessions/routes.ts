import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { ReadRouting } from '../db/read-routing.js';
import type { Database } from '../db/schema.js';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { checkPageWindow, PageSchema, paginate } from '../http/pagination.js';
import { errorResponses, WorkspaceParams } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import { dateRange } from './dates.js';
import { presentSession } from './present.js';
import { findSessionPage, loadSessions, type SessionFilters } from './query.js';
import { OrganisationSessionsQuery, Session, SessionsQuery } from './schemas.js';

const tags = ['Sessions'];
const SessionPage = PageSchema(Type.Ref(Session));
const CappedSessionPage = Type.Object({
  ...SessionPage.properties,
  truncated: Type.Boolean(),
  total_organisations: Type.Integer(),
  organisation_limit: Type.Integer(),
});

/**
 * Whether a segment or an organisation a list names is the workspace's, given by app.ts:
 * organisations/ and segments/ (through notifications/) read sessions, so sessions/ does
 * not import them back.
 */
export interface SessionListChecks {
  segmentExists(db: Kysely<Database>, workspaceId: string, segmentId: string): Promise<boolean>;
  organisationExists(
    db: Kysely<Database>,
    workspaceId: string,
    organisationId: string,
  ): Promise<boolean>;
}

/** The lists read from the replica when there is one (`reads`), their checks too. */
export function sessionRoutes(
  app: Api,
  deps: AppDeps,
  reads: ReadRouting,
  checks: SessionListChecks,
): void {
  const list = async (
    db: Kysely<Database>,
    filters: SessionFilters,
    page: number,
    size: number,
    cap: number | null,
  ) => {
    const found = await findSessionPage(
      db,
      filters,
      { offset: (page - 1) * size, limit: size },
      cap,
    );
    const { range } = filters;
    const sessions = await loadSessions(
      db,
      filters.workspaceId,
      found.ids,
      range ? { from: range.from.toISOString(), to: range.to.toISOString() } : undefined,
    );
    return { ...found, data: sessions.map((session) => presentSession(session)) };
  };

  app.get(
    '/v1/workspaces/:workspaceUuid/sessions',
    {
      schema: {
        tags,
        summary: 'List attributed sessions in a date range, newest first',
        params: WorkspaceParams,
        querystring: SessionsQuery,
        response: { 200: CappedSessionPage, ...errorResponses(400, 401, 404, 422, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const query = request.query;
      const range = dateRange(query, true);
      checkPageWindow(query);
      const db = await reads.reader(userOf(request));
      if (
        query.segmentUuid !== undefined &&
        !(await checks.segmentExists(db, workspace.id, query.segmentUuid))
      ) {
        throw notFound('Segment not found.');
      }
      const limit = deps.config.sessionsOrganisationLimit;
      const result = await list(
        db,
        {
          workspaceId: workspace.id,
          range,
          segmentId: query.segmentUuid,
          url: query.url,
          referrer: query.referrer,
          visitorId: query.visitor_uuid,
        },
        query.page,
        query.size,
        limit,
      );
      return {
        ...paginate(request, deps.config.publicUrl, query, result.total, result.data),
        truncated: result.totalOrganisations > limit,
        total_organisations: result.totalOrganisations,
        organisation_limit: limit,
      };
    },
  );

  app.get(
    '/v1/workspaces/:workspaceUuid/organisations/:organisationUuid/sessions',
    {
      schema: {
        tags,
        summary: "List one organisation's sessions, newest first; dates optional",
        params: Type.Object({
          workspaceUuid: Type.String({ format: 'uuid' }),
          organisationUuid: Type.String({ format: 'uuid' }),
        }),
        querystring: OrganisationSessionsQuery,
        response: { 200: SessionPage, ...errorResponses(400, 401, 404, 422, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const { organisationUuid } = request.params;
      const db = await reads.reader(userOf(request));
      if (!(await checks.organisationExists(db, workspace.id, organisationUuid))) {
        throw notFound('Organisation not found.');
      }
      const query = request.query;
      const range = dateRange(query, false);
      checkPageWindow(query);
      const result = await list(
        db,
        {
          workspaceId: workspace.id,
          range,
          organisationId: organisationUuid,
          url: query.url,
          referrer: query.referrer,
          visitorId: query.visitor_uuid,
        },
        query.page,
        query.size,
        null,
      );
      return paginate(request, deps.config.publicUrl, query, result.total, result.data);
    },
  );
}
