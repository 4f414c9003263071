import { Type } from '@sinclair/typebox';
import type { Api, AppDeps } from '../../http/api.js';
import { notFound } from '../../http/errors.js';
import { checkDeliveryTarget } from '../../http/outbound/target.js';
import { errorResponses, Message, WorkspaceParams, Wrapped } from '../../http/schemas.js';
import { isUuid } from '../../http/validation.js';
import { requireWorkspace } from '../../http/workspace.js';
import { createZapierHook, deleteZapierHook, listZapierHooks, type ZapierEvent } from './store.js';

const tags = ['Zapier'];
const Event = Type.Union(
  [Type.Literal('new_lead'), Type.Literal('new_session'), Type.Literal('contacts_revealed')],
  {
    description:
      'new_lead: an organisation identified for the first time (body: the Organisation); new_session: a session of an organisation ended (body: the Session with `organisation`); contacts_revealed: a contact identified (body: the Contact)',
  },
);
const Hook = Type.Object(
  { id: Type.String(), name: Type.String(), hookUrl: Type.String(), event: Event },
  { title: 'ZapierHook' },
);
const HookInput = Type.Object({
  hookUrl: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'https, resolving to public addresses (contract §10)',
  }),
  event: Type.Optional(Event),
  name: Type.Optional(Type.String({ maxLength: 255 })),
});

/** Zapier REST hooks as Snitcher's API has them (contract §18); admins only. */
export function zapierRoutes(app: Api, deps: AppDeps): void {
  const base = '/v1/workspaces/:workspaceUuid/zapier/hooks';

  app.get(
    base,
    {
      schema: {
        tags,
        summary: "The workspace's Zapier hooks (admins)",
        params: WorkspaceParams,
        response: { 200: Wrapped(Type.Array(Hook)), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return { success: true, data: await listZapierHooks(deps.db, workspace.id) };
    },
  );

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Subscribe a hook to an event (admins); default event new_lead',
        description:
          'Each event is POSTed to hookUrl as JSON, retried like webhooks (1 min, 5 min, 30 min, 2 h); an answer of 410 Gone removes the hook.',
        params: WorkspaceParams,
        body: HookInput,
        response: {
          201: Wrapped(Type.Omit(Hook, ['name'])),
          ...errorResponses(400, 401, 403, 404, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const hookUrl = await checkDeliveryTarget('hookUrl', request.body.hookUrl, {
        allowPrivate: deps.config.allowPrivateWebhooks,
        resolve: deps.resolve,
      });
      const event: ZapierEvent = request.body.event ?? 'new_lead';
      const hook = await createZapierHook(deps.db, workspace.id, {
        name: request.body.name?.trim() ?? '',
        hookUrl,
        event,
      });
      reply.status(201);
      return { success: true, data: { id: hook.id, hookUrl: hook.hookUrl, event: hook.event } };
    },
  );

  app.delete(
    `${base}/:hookId`,
    {
      schema: {
        tags,
        summary: 'Unsubscribe a hook (admins); its pending deliveries go with it',
        params: Type.Object({ workspaceUuid: Type.String(), hookId: Type.String() }),
        response: { 200: Message, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const { hookId } = request.params;
      if (!isUuid(hookId) || !(await deleteZapierHook(deps.db, workspace.id, hookId))) {
        throw notFound('Hook not found.');
      }
      return { success: true, message: 'Hook deleted.' };
    },
  );
}
