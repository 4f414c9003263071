import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import { publicOrigin } from '../config.js';
import type { ReadRouting } from '../db/read-routing.js';
import type { Database } from '../db/schema.js';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { dashboardLink } from '../http/links.js';
import { errorResponses, WorkspaceParams } from '../http/schemas.js';
import type { WorkspaceRow } from '../http/workspace.js';
import { requireWorkspace } from '../http/workspace.js';
import { AdHocQuery, adHocFilters, listChoices } from '../organisations/list.js';
import { segmentExists } from '../segments/store.js';
import { dateRange } from '../sessions/dates.js';
import { BOM, type Cell, csvRow } from './csv.js';
import { organisationRows, sessionRows } from './rows.js';

const tags = ['Exports'];
const day = (description: string) =>
  Type.Optional(Type.String({ description: `${description} (YYYY-MM-DD, UTC)` }));
const CsvFile = {
  description: 'text/csv; charset=utf-8, a header row first (RFC 4180)',
  content: { 'text/csv': { schema: { type: 'string' } } },
};

export function exportRoutes(app: Api, deps: AppDeps, reads: ReadRouting): void {
  const base = publicOrigin(deps.config);
  const segment = async (db: Kysely<Database>, workspaceId: string, uuid: string | undefined) => {
    if (uuid === undefined) return undefined;
    if (!(await segmentExists(db, workspaceId, uuid))) {
      throw notFound('Segment not found.');
    }
    return uuid;
  };

  app.get(
    '/v1/workspaces/:workspaceUuid/organisations.csv',
    {
      schema: {
        tags,
        summary: 'Export the organisations of a list as CSV (all of them, no paging)',
        description:
          "Takes the organisations list's filters, and `filters`: the segment grammar as JSON, " +
          "as POST .../organisations takes it. Cells starting with = + - @ are prefixed with '.",
        params: WorkspaceParams,
        querystring: Type.Object({
          name: Type.Optional(Type.String({ maxLength: 255, description: 'name contains' })),
          date_from: day('seen on or after this day'),
          date_to: day('seen on or before this day'),
          segmentUuid: Type.Optional(Type.String({ description: 'members of this segment' })),
          ...AdHocQuery,
        }),
        response: { 200: CsvFile, ...errorResponses(400, 401, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const query = request.query;
      const range = dateRange(query, false);
      const db = await reads.reader(userOf(request));
      const segmentId = await segment(db, workspace.id, query.segmentUuid);
      const filters = await adHocFilters(db, workspace.id, query);
      const choices = await listChoices(db, workspace.id, userOf(request), query);
      const rows = organisationRows(
        db,
        { workspaceId: workspace.id, name: query.name, range, segmentId, filters, ...choices },
        (id) => dashboardLink(base, workspace.id, id),
      );
      return sendCsv(reply, fileName(workspace, 'organisations'), rows);
    },
  );

  app.get(
    '/v1/workspaces/:workspaceUuid/sessions.csv',
    {
      schema: {
        tags,
        summary: 'Export the sessions of a list as CSV (all of them: no paging, no caps)',
        description: 'Takes the sessions list’s filters; dates are optional (default: all).',
        params: WorkspaceParams,
        querystring: Type.Object({
          date: day('one day; not with date_from or date_to'),
          date_from: day('first day, inclusive'),
          date_to: day('last day, inclusive; default today'),
          url: Type.Optional(Type.String({ maxLength: 2048 })),
          referrer: Type.Optional(Type.String({ maxLength: 2048 })),
          visitor_uuid: Type.Optional(Type.String({ format: 'uuid' })),
          segmentUuid: Type.Optional(Type.String()),
        }),
        response: { 200: CsvFile, ...errorResponses(400, 401, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const query = request.query;
      const range = dateRange(query, false);
      const db = await reads.reader(userOf(request));
      const rows = sessionRows(
        db,
        {
          workspaceId: workspace.id,
          range,
          segmentId: await segment(db, workspace.id, query.segmentUuid),
          url: query.url,
          referrer: query.referrer,
          visitorId: query.visitor_uuid,
        },
        (id) => dashboardLink(base, workspace.id, id),
      );
      return sendCsv(reply, fileName(workspace, 'sessions'), rows);
    },
  );
}

function fileName(workspace: WorkspaceRow, what: string): string {
  let host = 'footfall';
  try {
    host = new URL(workspace.url).hostname.replace(/^www\./, '') || host;
  } catch {}
  return `${host}-${what}-${new Date().toISOString().slice(0, 10)}.csv`;
}

/**
 * Streams rows as they are read: the stream pulls the next batch only when the client has
 * taken the last (backpressure), and stops reading when the client goes away.
 */
function sendCsv(reply: FastifyReply, name: string, rows: AsyncGenerator<Cell[]>) {
  async function* lines() {
    yield BOM;
    let chunk = '';
    for await (const row of rows) {
      chunk += csvRow(row);
      if (chunk.length >= 64 * 1024) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`)
    .header('cache-control', 'no-store')
    .send(Readable.from(lines()));
}
