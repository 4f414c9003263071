import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { memberNamed } from '../accounts/store.js';
import type { ReadRouting } from '../db/read-routing.js';
import type { Database } from '../db/schema.js';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { checkPageWindow, PageQuery, PageSchema, paginate } from '../http/pagination.js';
import { errorResponses, Message, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import { FiltersInput, requireFilters } from '../segments/filters.js';
import { segmentExists } from '../segments/store.js';
import { dateRange } from '../sessions/dates.js';
import { TagBody } from '../workspaces/schemas.js';
import { parseTagName } from '../workspaces/tag-name.js';
import {
  AdHocQuery,
  adHocFilters,
  findOrganisationPage,
  listChoices,
  type OrganisationFilters,
} from './list.js';
import { loadOrganisations } from './read.js';
import { Organisation, OrganisationParams, OrganisationPatch } from './schemas.js';
import { organisationExists, updateOrganisation } from './store.js';
import { attachTag, detachTag } from './tags.js';

const tags = ['Organisations'];
const OrganisationRef = Type.Ref(Organisation);

/** The list, the search and one organisation read from the replica when there is one. */
export function organisationRoutes(app: Api, deps: AppDeps, reads: ReadRouting): void {
  /** The caller's workspace and one of its organisations, or 404. */
  const requireOrganisation = async (
    request: FastifyRequest,
    params: { workspaceUuid: string; organisationUuid: string },
    db = deps.db,
  ) => {
    const workspace = await requireWorkspace(deps, request, params.workspaceUuid);
    if (!(await organisationExists(db, workspace.id, params.organisationUuid))) {
      throw notFound('Organisation not found.');
    }
    return { workspaceId: workspace.id, organisationId: params.organisationUuid };
  };
  /** A page of the organisations matching `filters`, in the list's envelope. */
  const organisationPage = async (
    db: Kysely<Database>,
    request: FastifyRequest,
    query: { page: number; size: number },
    filters: OrganisationFilters,
  ) => {
    const { ids, total } = await findOrganisationPage(db, filters, {
      offset: (query.page - 1) * query.size,
      limit: query.size,
    });
    const data = await loadOrganisations(db, filters.workspaceId, ids);
    return paginate(request, deps.config.publicUrl, query, total, data);
  };

  app.get(
    '/v1/workspaces/:workspaceUuid/organisations',
    {
      schema: {
        tags,
        summary: 'List organisations (leads only unless asked), most recently active first',
        params: WorkspaceParams,
        querystring: Type.Object({
          ...PageQuery.properties,
          name: Type.Optional(
            Type.String({ maxLength: 255, description: 'name contains (any case)' }),
          ),
          date_from: Type.Optional(
            Type.String({ description: 'seen on or after this day (YYYY-MM-DD)' }),
          ),
          date_to: Type.Optional(
            Type.String({ description: 'seen on or before this day (YYYY-MM-DD)' }),
          ),
          segmentUuid: Type.Optional(Type.String({ description: 'members of this segment' })),
          uuid: Type.Optional(
            Type.Array(Type.String(), {
              maxItems: 100,
              description:
                'only these organisations (repeat the parameter, up to 100): one request for the names of a page of sessions or contacts',
            }),
          ),
          ...AdHocQuery,
        }),
        response: { 200: PageSchema(OrganisationRef), ...errorResponses(400, 401, 404, 422, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const query = request.query;
      checkPageWindow(query);
      const range = dateRange(query, false);
      const db = await reads.reader(userOf(request));
      if (
        query.segmentUuid !== undefined &&
        !(await segmentExists(db, workspace.id, query.segmentUuid))
      ) {
        throw notFound('Segment not found.');
      }
      return organisationPage(db, request, query, {
        workspaceId: workspace.id,
        name: query.name,
        range,
        segmentId: query.segmentUuid,
        ids: query.uuid,
        filters: await adHocFilters(db, workspace.id, query),
        // Asked for by id (the names of a page of sessions): whatever their status.
        ...(await listChoices(db, workspace.id, userOf(request), {
          ...query,
          include_all: query.include_all ?? (query.uuid !== undefined || undefined),
        })),
      });
    },
  );

  app.post(
    '/v1/workspaces/:workspaceUuid/organisations',
    {
      schema: {
        tags,
        summary: 'Search organisations with segment filters, ad hoc (a page, as the list answers)',
        description:
          'Takes `page` and `size` in the query string. The page links point at this URL: ' +
          'POST the same body to them for the other pages.',
        params: WorkspaceParams,
        querystring: PageQuery,
        body: Type.Object({ filters: FiltersInput }),
        response: {
          200: PageSchema(OrganisationRef),
          ...errorResponses(400, 401, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const query = request.query;
      checkPageWindow(query);
      const db = await reads.reader(userOf(request));
      const filters = await requireFilters(db, workspace.id, request.body.filters);
      return organisationPage(db, request, query, {
        workspaceId: workspace.id,
        range: null,
        filters,
      });
    },
  );

  app.get(
    '/v1/workspaces/:workspaceUuid/organisations/:organisationUuid',
    {
      schema: {
        tags,
        summary: 'Get an organisation with its profile, tags, segments and figures',
        params: OrganisationParams,
        response: { 200: Wrapped(OrganisationRef), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const db = await reads.reader(userOf(request));
      const { workspaceId, organisationId } = await requireOrganisation(
        request,
        request.params,
        db,
      );
      const [organisation] = await loadOrganisations(db, workspaceId, [organisationId]);
      if (!organisation) throw notFound('Organisation not found.');
      return { success: true, data: organisation };
    },
  );

  app.patch(
    '/v1/workspaces/:workspaceUuid/organisations/:organisationUuid',
    {
      schema: {
        tags,
        summary: 'Set an organisation’s owner and status (any member)',
        description:
          'The owner must be a member of the workspace (422 otherwise); null takes the owner away. ' +
          'Customers, competitors and hidden organisations leave the list, CSV, digests and alerts.',
        params: OrganisationParams,
        body: OrganisationPatch,
        response: {
          200: Wrapped(OrganisationRef),
          ...errorResponses(400, 401, 403, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const { workspaceId, organisationId } = await requireOrganisation(request, request.params);
      const { owner_uuid: owner, status } = request.body;
      const ownerId =
        owner === undefined || owner === null
          ? owner
          : await memberNamed(deps.db, workspaceId, userOf(request), owner, 'owner_uuid');
      await updateOrganisation(deps.db, workspaceId, organisationId, { ownerId, status });
      const [organisation] = await loadOrganisations(deps.db, workspaceId, [organisationId]);
      if (!organisation) throw notFound('Organisation not found.');
      return { success: true, data: organisation };
    },
  );

  app.post(
    '/v1/workspaces/:workspaceUuid/organisations/:organisationUuid/tags',
    {
      schema: {
        tags,
        summary: 'Tag an organisation (the tag joins the available tags)',
        params: OrganisationParams,
        body: TagBody,
        response: { 200: Message, ...errorResponses(400, 401, 404, 415, 422, 429) },
      },
    },
    async (request) => {
      const { workspaceId, organisationId } = await requireOrganisation(request, request.params);
      await attachTag(deps.db, workspaceId, organisationId, parseTagName(request.body.tag_name));
      return { success: true, message: 'Tag added.' };
    },
  );

  app.delete(
    '/v1/workspaces/:workspaceUuid/organisations/:organisationUuid/tags',
    {
      schema: {
        tags,
        summary: 'Remove a tag from an organisation',
        params: OrganisationParams,
        body: TagBody,
        response: { 200: Message, ...errorResponses(400, 401, 404, 415, 422, 429) },
      },
    },
    async (request) => {
      const { workspaceId, organisationId } = await requireOrganisation(request, request.params);
      if (
        !(await detachTag(
          deps.db,
          workspaceId,
          organisationId,
          parseTagName(request.body.tag_name),
        ))
      ) {
        throw notFound('The organisation does not carry that tag.');
      }
      return { success: true, message: 'Tag removed.' };
    },
  );
}
