import { Type } from '@sinclair/typebox';
import { CRM_NAMES, type CrmName } from '../../db/schema.js';
import type { Api, AppDeps } from '../../http/api.js';
import { fieldError, notFound } from '../../http/errors.js';
import { encrypt } from '../../http/keys.js';
import { errorResponses, Message, WorkspaceParams, Wrapped } from '../../http/schemas.js';
import { isUuid } from '../../http/validation.js';
import { requireWorkspace } from '../../http/workspace.js';
import { segmentExists } from '../../segments/store.js';
import { CrmError } from './call.js';
import {
  deleteConnection,
  listIntegrations,
  type Integration as Shown,
  saveConnection,
  startBackfill,
} from './store.js';
import { crmClient, VENDORS } from './vendors.js';

const tags = ['Integrations'];

const Settings = Type.Object({
  min_score: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], {
    description: 'Only organisations scoring at least this much; null: any score',
  }),
  segment_uuid: Type.Union([Type.String(), Type.Null()], {
    description: 'Only organisations in this segment; null: any',
  }),
});
const Integration = Type.Object(
  {
    name: Type.Union([Type.Literal('hubspot'), Type.Literal('pipedrive')]),
    enabled: Type.Boolean(),
    status: Type.Union(
      [
        Type.Literal('not_connected'),
        Type.Literal('connected'),
        Type.Literal('syncing'),
        Type.Literal('disabled'),
        Type.Literal('failed'),
      ],
      {
        description:
          'syncing: a backfill is under way; disabled: paused by an admin; failed: the CRM refused the token (see last_error), nothing is sent until it is replaced',
      },
    ),
    connected_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    last_synced_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    synced: Type.Integer({ description: 'Companies the CRM holds for this workspace' }),
    failed: Type.Integer({ description: 'Deliveries the CRM would not take' }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    settings: Settings,
    backfill: Type.Union([
      Type.Object({
        started_at: Type.String({ format: 'date-time' }),
        finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
        total: Type.Integer(),
        done: Type.Integer(),
      }),
      Type.Null(),
    ]),
  },
  { title: 'Integration' },
);
const NameParams = Type.Object({ workspaceUuid: Type.String(), name: Type.String() });
const Change = Type.Object({
  token: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        'HubSpot: a private app access token; Pipedrive: an API token. Never shown again.',
    }),
  ),
  enabled: Type.Optional(Type.Boolean()),
  settings: Type.Optional(Type.Partial(Settings)),
});

/** The CRM a path names, or 404 as for any unknown resource. */
function crmName(name: string): CrmName {
  if (!(CRM_NAMES as readonly string[]).includes(name)) throw notFound('No such integration.');
  return name as CrmName;
}

/** HubSpot and Pipedrive connections (contract §18); admins only. */
export function crmRoutes(app: Api, deps: AppDeps): void {
  const base = '/v1/workspaces/:workspaceUuid/integrations';
  const shown = async (workspaceId: string, name: CrmName) =>
    (await listIntegrations(deps.db, workspaceId)).find((i) => i.name === name) as Shown;

  app.get(
    base,
    {
      schema: {
        tags,
        summary: "The workspace's CRM connections, HubSpot and Pipedrive (admins)",
        params: WorkspaceParams,
        response: { 200: Wrapped(Type.Array(Integration)), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return { success: true, data: await listIntegrations(deps.db, workspace.id) };
    },
  );

  app.put(
    `${base}/:name`,
    {
      schema: {
        tags,
        summary: 'Connect a CRM, or change its connection (admins)',
        description:
          'A token is checked with one call to the CRM before it is stored (encrypted); it is never returned. Without a token, changes the settings of an existing connection.',
        params: NameParams,
        body: Change,
        response: {
          200: Wrapped(Integration),
          ...errorResponses(400, 401, 403, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const name = crmName(request.params.name);
      const { token, enabled, settings } = request.body;
      const segmentId = settings?.segment_uuid;
      if (
        segmentId &&
        !(isUuid(segmentId) && (await segmentExists(deps.db, workspace.id, segmentId)))
      ) {
        throw fieldError('settings.segment_uuid', 'No segment of this workspace has this uuid.');
      }
      let tokenEncrypted: Buffer | undefined;
      if (token !== undefined) {
        await checkToken(deps, workspace.id, name, token.trim());
        tokenEncrypted = encrypt(deps.keys.encryption, token.trim());
      }
      const saved = await saveConnection(deps.db, workspace.id, name, {
        tokenEncrypted,
        enabled,
        minScore: settings?.min_score,
        segmentId,
      });
      if (!saved) throw fieldError('token', `Connect ${VENDORS[name].label} with a token first.`);
      return { success: true, data: await shown(workspace.id, name) };
    },
  );

  app.delete(
    `${base}/:name`,
    {
      schema: {
        tags,
        summary: 'Disconnect a CRM (admins): its token and everything still to send go',
        params: NameParams,
        response: { 200: Message, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const name = crmName(request.params.name);
      if (!(await deleteConnection(deps.db, workspace.id, name))) {
        throw notFound(`${VENDORS[name].label} is not connected.`);
      }
      return { success: true, message: `${VENDORS[name].label} disconnected.` };
    },
  );

  app.post(
    `${base}/:name/sync`,
    {
      schema: {
        tags,
        summary: 'Sync every qualifying organisation now (admins)',
        description:
          'Queues a backfill of every organisation that qualifies; its progress is the connection’s `backfill`.',
        params: NameParams,
        response: { 202: Wrapped(Integration), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const name = crmName(request.params.name);
      const current = await shown(workspace.id, name);
      if (current.status === 'not_connected') {
        throw fieldError('name', `Connect ${VENDORS[name].label} with a token first.`);
      }
      await startBackfill(deps.db, workspace.id, name);
      reply.status(202);
      return { success: true, data: await shown(workspace.id, name) };
    },
  );
}

// The token check is one call, answered while the admin waits.
const CHECK_DEADLINE_MS = 15_000;

/** One call with the token; a 422 on `token` saying why the CRM would not take it. */
async function checkToken(deps: AppDeps, workspaceId: string, name: CrmName, token: string) {
  const signal = AbortSignal.timeout(CHECK_DEADLINE_MS);
  const client = crmClient(deps, workspaceId, name, token, signal);
  try {
    await client.check();
  } catch (error) {
    if (error instanceof CrmError) throw fieldError('token', error.message);
    if (signal.aborted) {
      throw fieldError(
        'token',
        `${VENDORS[name].label} did not answer within ${CHECK_DEADLINE_MS / 1000} s.`,
      );
    }
    throw error;
  }
}
