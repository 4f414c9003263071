import { Type } from '@sinclair/typebox';
import type { Api, AppDeps } from '../http/api.js';
import { notFound } from '../http/errors.js';
import { errorResponses, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import { presentPrivacy, presentTrackerFeatures } from './present.js';
import { PrivacyBody, PrivacySettings, TrackerFeatures, TrackerFeaturesBody } from './schemas.js';
import { updateTrackerFeatures } from './store.js';

const tags = ['Workspaces'];

/** What the tracking script sends (form, click, download tracking) and whom it leaves alone. */
export function settingRoutes(app: Api, deps: AppDeps): void {
  app.get(
    '/v1/workspaces/:workspaceUuid/tracker-features',
    {
      schema: {
        tags,
        summary: 'Which of form, click and download tracking are on',
        params: WorkspaceParams,
        response: {
          200: Wrapped(Type.Ref(TrackerFeatures)),
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return { success: true, data: presentTrackerFeatures(row) };
    },
  );

  app.patch(
    '/v1/workspaces/:workspaceUuid/tracker-features',
    {
      schema: {
        tags,
        summary: 'Switch form, click and download tracking on or off',
        params: WorkspaceParams,
        body: TrackerFeaturesBody,
        response: {
          200: Wrapped(Type.Ref(TrackerFeatures)),
          ...errorResponses(400, 401, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      if (!row.tracking_script_id) throw notFound('This workspace has no tracking script.');
      const { form_tracking, click_tracking, download_tracking } = request.body;
      const changes = Object.fromEntries(
        Object.entries({ form_tracking, click_tracking, download_tracking }).filter(
          ([, value]) => value !== undefined,
        ),
      );
      await updateTrackerFeatures(deps.db, row.id, changes);
      return { success: true, data: presentTrackerFeatures({ ...row, ...changes }) };
    },
  );

  const privacy = {
    tags,
    params: WorkspaceParams,
    response: { 200: Wrapped(Type.Ref(PrivacySettings)), ...errorResponses(401, 404, 429) },
  };
  app.get(
    '/v1/workspaces/:workspaceUuid/privacy',
    { schema: { ...privacy, summary: "The workspace's privacy settings" } },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return { success: true, data: presentPrivacy(row) };
    },
  );

  app.patch(
    '/v1/workspaces/:workspaceUuid/privacy',
    {
      schema: {
        ...privacy,
        summary: 'Change privacy settings: honour Global Privacy Control',
        body: PrivacyBody,
        response: { ...privacy.response, ...errorResponses(400, 401, 404, 415, 422, 429) },
      },
    },
    async (request) => {
      const row = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const changes =
        request.body.honor_gpc === undefined ? {} : { honor_gpc: request.body.honor_gpc };
      await updateTrackerFeatures(deps.db, row.id, changes);
      return { success: true, data: presentPrivacy({ ...row, ...changes }) };
    },
  );
}
