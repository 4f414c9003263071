import { Type } from '@sinclair/typebox';
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { fieldError, HttpError, notFound } from '../http/errors.js';
import { sign } from '../http/outbound/signing.js';
import { checkDeliveryTarget } from '../http/outbound/target.js';
import { checkPageWindow, PageQuery, PageSchema, paginate } from '../http/pagination.js';
import { errorResponses, UuidParams } from '../http/schemas.js';
import { PING_WORKSPACE } from './body.js';
import {
  enqueuePing,
  isOwnDelivery,
  redeliver,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from './outbox.js';
import { DeliverySchema, DeliveryStatusSchema, presentDelivery } from './present.js';
import { findWebhookConfig, saveWebhookConfig, type WebhookConfig } from './store.js';

// A plain string enum rather than a union of literals, so that a wrong kind is answered
// with the list of right ones.
const EventKind = Type.Unsafe<WebhookEvent>({ type: 'string', enum: [...WEBHOOK_EVENTS] });

const WebhookAnswer = Type.Object(
  {
    success: Type.Boolean(),
    data: Type.Array(
      Type.Object({
        delivery: Type.Object({
          webhook_url: Type.String(),
          signature: Type.String({
            description: 'sha256= + hex HMAC-SHA256 of webhook_url keyed with the secret',
          }),
          events: Type.Array(EventKind, {
            description: 'the kinds that are sent (every kind unless a choice was saved)',
          }),
        }),
      }),
      { description: 'Empty while delivery is switched off' },
    ),
    message: Type.String(),
  },
  { title: 'WebhookConfiguration' },
);

const WebhookBody = Type.Object({
  delivery: Type.Object({
    webhook_url: Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()]),
    webhook_secret: Type.Optional(Type.String({ minLength: 16, maxLength: 255 })),
    mode: Type.Optional(Type.Union([Type.Literal('session'), Type.Literal('event')])),
    events: Type.Optional(
      Type.Array(EventKind, {
        maxItems: 20,
        description:
          'The kinds to send, at least one (to stop sending, set webhook_url to null). Every kind by default; kept when omitted. Choosing every kind includes kinds added later.',
      }),
    ),
  }),
});

const DeliveriesQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(DeliveryStatusSchema),
});

const DeliveryAnswer = Type.Object(
  { success: Type.Boolean(), message: Type.String(), data: DeliverySchema },
  { title: 'WebhookDeliveryAnswer' },
);

const tags = ['Webhooks'];

// A deleted workspace's deliveries are gone from the log at once, before the purge. A
// ping belongs to no workspace.
const liveWorkspace = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
  eb.or([
    eb('workspace_id', '=', PING_WORKSPACE),
    eb(
      'workspace_id',
      'not in',
      eb.selectFrom('workspaces').select('id').where('deleted_at', 'is not', null),
    ),
  ]);

const noTarget = () =>
  fieldError(
    'delivery.webhook_url',
    'No webhook URL is configured: set one with PATCH /radar/operator/v1/webhooks first.',
  );

export function webhookRoutes(app: Api, deps: AppDeps): void {
  const answer = (config: WebhookConfig | undefined, message: string) => ({
    success: true,
    data: config?.url
      ? [
          {
            delivery: {
              webhook_url: config.url,
              signature: sign(config.secret, config.url),
              events: config.events ?? [...WEBHOOK_EVENTS],
            },
          },
        ]
      : [],
    message,
  });

  app.get(
    '/radar/operator/v1/webhooks',
    {
      schema: {
        tags,
        summary: 'Show the webhook delivery target of all your workspaces',
        response: { 200: WebhookAnswer, ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const config = await findWebhookConfig(deps.db, deps.keys.encryption, userOf(request));
      return answer(config, config?.url ? 'Webhook delivery is on.' : 'Webhook delivery is off.');
    },
  );

  app.get(
    '/radar/operator/v1/webhooks/deliveries',
    {
      schema: {
        tags,
        summary: 'Recent webhook deliveries, newest first, with their state',
        description: 'Optionally only those with one `status` (pending, delivered or failed).',
        querystring: DeliveriesQuery,
        response: { 200: PageSchema(DeliverySchema), ...errorResponses(401, 422, 429) },
      },
    },
    async (request) => {
      checkPageWindow(request.query);
      const { page, size, status } = request.query;
      const userId = userOf(request);
      const mine = deps.db
        .selectFrom('webhook_deliveries')
        .where('user_id', '=', userId)
        .where(liveWorkspace)
        .$if(status !== undefined, (query) => query.where('status', '=', status ?? ''));
      const [count, rows] = await Promise.all([
        mine.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
        mine
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id')
          .offset((page - 1) * size)
          .limit(size)
          .execute(),
      ]);
      const data = rows.map(presentDelivery);
      return paginate(request, deps.config.publicUrl, request.query, Number(count.total), data);
    },
  );

  app.post(
    '/radar/operator/v1/webhooks/test',
    {
      schema: {
        tags,
        summary: 'Send a signed test ping to your webhook target',
        description:
          'Queues a `ping` delivery (X-Footfall-Event: ping) to the configured target and answers 202 with it at once; the worker sends it within a second, signed and retried like every delivery, and the deliveries log shows how it went. Its uuid is the X-Footfall-Delivery header the receiver sees. 422 when no target is configured.',
        response: { 202: DeliveryAnswer, ...errorResponses(401, 422, 429) },
      },
    },
    async (request, reply) => {
      const userId = userOf(request);
      const config = await findWebhookConfig(deps.db, deps.keys.encryption, userId);
      if (!config?.url) throw noTarget();
      const ping = await enqueuePing(deps.db, userId);
      reply.status(202);
      return {
        success: true,
        message: `A test ping is on its way to ${config.url}.`,
        data: presentDelivery(ping),
      };
    },
  );

  app.post(
    '/radar/operator/v1/webhooks/deliveries/:uuid/redeliver',
    {
      schema: {
        tags,
        summary: 'Send a past delivery again, with the same delivery id and body',
        description:
          'A delivered or failed delivery starts a new round of attempts: the same X-Footfall-Delivery id and body, a fresh timestamp and signature. Answers 202 with the delivery as the log shows it (pending, attempts 0, redeliveries counted). 404 for a delivery that is not yours, or of a workspace you are no longer a member of (whether or not a target is configured); 409 while it is still pending; 422 when no target is configured.',
        params: UuidParams,
        response: { 202: DeliveryAnswer, ...errorResponses(401, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const userId = userOf(request);
      const id = request.params.uuid;
      const config = await findWebhookConfig(deps.db, deps.keys.encryption, userId);
      // Whose delivery it is comes first: an id that is not the caller's is not found,
      // whatever the caller's configuration.
      if (!config?.url) {
        if (!(await isOwnDelivery(deps.db, userId, id))) throw notFound('Delivery not found.');
        throw noTarget();
      }
      const again = await redeliver(deps.db, userId, id);
      if (again === undefined) throw notFound('Delivery not found.');
      if (again === 'pending') {
        throw new HttpError(
          409,
          'This delivery is still pending: it is retried on its own schedule (next_attempt_at).',
        );
      }
      reply.status(202);
      return {
        success: true,
        message: 'The delivery will be sent again.',
        data: presentDelivery(again),
      };
    },
  );

  app.patch(
    '/radar/operator/v1/webhooks',
    {
      schema: {
        tags,
        summary: 'Configure the webhook delivery target of all your workspaces',
        body: WebhookBody,
        response: { 200: WebhookAnswer, ...errorResponses(400, 401, 415, 422, 429) },
      },
    },
    async (request) => {
      const userId = userOf(request);
      const { webhook_url, webhook_secret, mode } = request.body.delivery;
      // The schema admits only the kinds (its enum); the type provider cannot see that.
      const events = chosenEvents(request.body.delivery.events as WebhookEvent[] | undefined);
      const current = await findWebhookConfig(deps.db, deps.keys.encryption, userId);
      if (webhook_url === null) {
        if (current)
          await saveWebhookConfig(deps.db, deps.keys.encryption, userId, {
            ...current,
            url: null,
            events: events === undefined ? current.events : events,
          });
        return answer(undefined, 'Webhook delivery switched off.');
      }
      const url = await checkDeliveryTarget('delivery.webhook_url', webhook_url, {
        allowPrivate: deps.config.allowPrivateWebhooks,
        resolve: deps.resolve,
        label: 'webhook url',
      });
      const secret = webhook_secret ?? current?.secret;
      if (!secret) {
        throw fieldError(
          'delivery.webhook_secret',
          'The webhook secret field is required when no secret is set yet (16 to 255 characters).',
        );
      }
      const config: WebhookConfig = {
        url,
        secret,
        mode: mode ?? current?.mode ?? 'session',
        events: events === undefined ? (current?.events ?? null) : events,
      };
      await saveWebhookConfig(deps.db, deps.keys.encryption, userId, config);
      return answer(config, 'Webhook configuration saved.');
    },
  );
}

/**
 * `delivery.events` as saved: undefined (omitted: keep), null (every kind, including any
 * added later), or the chosen kinds once each, in the contract's order. An empty choice
 * would send nothing, which is what a null webhook_url is for.
 */
function chosenEvents(events: WebhookEvent[] | undefined): WebhookEvent[] | null | undefined {
  if (events === undefined) return undefined;
  if (events.length === 0) {
    throw fieldError(
      'delivery.events',
      'Choose at least one event kind; to stop sending, set webhook_url to null.',
    );
  }
  const chosen = WEBHOOK_EVENTS.filter((kind) => events.includes(kind));
  return chosen.length === WEBHOOK_EVENTS.length ? null : chosen;
}
