import type { ReadRouting } from '../db/read-routing.js';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { fieldError, notFound } from '../http/errors.js';
import { errorResponses, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { isDay, isUuid } from '../http/validation.js';
import { requireWorkspace } from '../http/workspace.js';
import { findSegment } from '../segments/store.js';
import { presentStats } from './present.js';
import { Stats, StatsQuery } from './schemas.js';
import { type DayRange, readStats } from './store.js';

const tags = ['Stats'];
const DAY_MS = 86_400_000;
/** A year, leap day included: the longest range a chart asks for. */
const MAX_DAYS = 366;

/** The UTC days of the query (contract §6), both given, in order, at most MAX_DAYS. */
function dayRange(query: { date_from: string; date_to: string }): DayRange {
  for (const field of ['date_from', 'date_to'] as const) {
    if (!isDay(query[field])) {
      throw fieldError(field, `The ${field.replace('_', ' ')} field must be a date as YYYY-MM-DD.`);
    }
  }
  const days = (Date.parse(query.date_to) - Date.parse(query.date_from)) / DAY_MS + 1;
  if (days < 1)
    throw fieldError('date_to', 'The date to field must be a date on or after date_from.');
  if (days > MAX_DAYS) {
    throw fieldError('date_to', `The range may cover at most ${MAX_DAYS} days.`);
  }
  return { first: query.date_from, last: query.date_to };
}

export function statsRoutes(app: Api, deps: AppDeps, reads: ReadRouting): void {
  app.get(
    '/v1/workspaces/:workspaceUuid/stats',
    {
      schema: {
        tags,
        summary: 'Sessions, organisations and page views per day, and the top lists, for charts',
        params: WorkspaceParams,
        querystring: StatsQuery,
        response: { 200: Wrapped(Stats), ...errorResponses(400, 401, 404, 422, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const { segmentUuid } = request.query;
      const range = dayRange(request.query);
      const db = await reads.reader(userOf(request));
      if (segmentUuid !== undefined) {
        const known = isUuid(segmentUuid) && (await findSegment(db, workspace.id, segmentUuid));
        if (!known) throw notFound('Segment not found.');
      }
      const rows = await readStats(db, workspace.id, range, segmentUuid);
      return { success: true, data: presentStats(range, rows) };
    },
  );
}
