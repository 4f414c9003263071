import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Api, AppDeps } from '../http/api.js';
import { errorResponses, WorkspaceParams } from '../http/schemas.js';
import { requireWorkspace } from './access.js';

const Installation = Type.Object({
  last_event_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'the last event received in the last two days, stored or dropped; null: none',
  }),
  events_24h: Type.Integer({ description: 'events stored in the last 24 hours' }),
  dropped_24h: Type.Object({
    total: Type.Integer(),
    reasons: Type.Record(Type.String(), Type.Integer(), {
      description:
        'bot, gpc, excluded_ip_range, foreign_hostname, feature_disabled: events not stored, and why',
    }),
  }),
});

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
        response: {
          200: Type.Object({ success: Type.Boolean(), data: Installation }),
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      // The hour buckets overlapping the last 24 hours (up to 25 hours of counts).
      const { rows } = await sql<{ reason: string; events: number; last_at: Date }>`
        SELECT reason, sum(events) FILTER (WHERE hour > now() - interval '25 hours')::int AS events,
          max(last_at) AS last_at
        FROM workspace_ingest_hours
        WHERE workspace_id = ${workspace.id} AND hour > now() - interval '2 days'
        GROUP BY reason`.execute(deps.db);
      const reasons: Record<string, number> = {};
      let last: Date | null = null;
      for (const row of rows) {
        if (row.reason && row.events > 0) reasons[row.reason] = row.events;
        if (!last || row.last_at > last) last = row.last_at;
      }
      return {
        success: true,
        data: {
          last_event_at: last?.toISOString() ?? null,
          events_24h: rows.find((row) => row.reason === '')?.events ?? 0,
          dropped_24h: {
            total: Object.values(reasons).reduce((sum, n) => sum + n, 0),
            reasons,
          },
        },
      };
    },
  );
}
