import { Type } from '@sinclair/typebox';
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { fieldError } from '../http/errors.js';
import { checkPageWindow, PageQuery, PageSchema, paginate } from '../http/pagination.js';
import { errorResponses } from '../http/schemas.js';
import { publicAddressesOf, type Resolver, UnsafeAddressError } from './address-guard.js';
import { sign } from './signing.js';
import { findWebhookConfig, saveWebhookConfig, type WebhookConfig } from './store.js';

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
  }),
});

const tags = ['Webhooks'];

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Delivery = Type.Object({
  uuid: Type.String({
    format: 'uuid',
    description: 'the X-Footfall-Delivery header, the same on every retry',
  }),
  event: Type.String(),
  workspace_uuid: Type.String({ format: 'uuid' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  last_status_code: nullable(Type.Integer()),
  last_error: Type.String(),
  next_attempt_at: nullable(Type.String()),
  created_at: Type.String(),
  delivered_at: nullable(Type.String()),
});

// A deleted workspace's deliveries are gone from the log at once, before the purge.
const liveWorkspace = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
  eb(
    'workspace_id',
    'not in',
    eb.selectFrom('workspaces').select('id').where('deleted_at', 'is not', null),
  );

export function webhookRoutes(app: Api, deps: AppDeps): void {
  const answer = (config: WebhookConfig | undefined, message: string) => ({
    success: true,
    data: config?.url
      ? [{ delivery: { webhook_url: config.url, signature: sign(config.secret, config.url) } }]
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
        querystring: PageQuery,
        response: { 200: PageSchema(Delivery), ...errorResponses(401, 422, 429) },
      },
    },
    async (request) => {
      checkPageWindow(request.query);
      const { page, size } = request.query;
      const userId = userOf(request);
      const [count, rows] = await Promise.all([
        deps.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .where('user_id', '=', userId)
          .where(liveWorkspace)
          .executeTakeFirstOrThrow(),
        deps.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('user_id', '=', userId)
          .where(liveWorkspace)
          .orderBy('created_at', 'desc')
          .orderBy('id')
          .offset((page - 1) * size)
          .limit(size)
          .execute(),
      ]);
      const data = rows.map((row) => ({
        uuid: row.id,
        event: row.event,
        workspace_uuid: row.workspace_id,
        status: row.status as 'pending' | 'delivered' | 'failed',
        attempts: row.attempts,
        last_status_code: row.last_status_code,
        last_error: row.last_error,
        next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
        created_at: row.created_at.toISOString(),
        delivered_at: row.delivered_at?.toISOString() ?? null,
      }));
      return paginate(request, deps.config.publicUrl, request.query, Number(count.total), data);
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
      const current = await findWebhookConfig(deps.db, deps.keys.encryption, userId);
      if (webhook_url === null) {
        if (current)
          await saveWebhookConfig(deps.db, deps.keys.encryption, userId, {
            ...current,
            url: null,
          });
        return answer(undefined, 'Webhook delivery switched off.');
      }
      const url = await checkTarget(webhook_url, deps.config.allowPrivateWebhooks, deps.resolve);
      const secret = webhook_secret ?? current?.secret;
      if (!secret) {
        throw fieldError(
          'delivery.webhook_secret',
          'The webhook secret field is required when no secret is set yet (16 to 255 characters).',
        );
      }
      const config: WebhookConfig = { url, secret, mode: mode ?? current?.mode ?? 'session' };
      await saveWebhookConfig(deps.db, deps.keys.encryption, userId, config);
      return answer(config, 'Webhook configuration saved.');
    },
  );
}

/** https and a public address, unless ALLOW_PRIVATE_WEBHOOKS lifts both rules. */
async function checkTarget(
  raw: string,
  allowPrivate: boolean,
  resolve?: Resolver,
): Promise<string> {
  const field = 'delivery.webhook_url';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fieldError(field, 'The webhook url field must be an absolute URL.');
  }
  const protocols = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!protocols.includes(url.protocol)) {
    throw fieldError(field, 'The webhook url field must be an https URL.');
  }
  if (!allowPrivate) {
    try {
      await publicAddressesOf(url, resolve);
    } catch (error) {
      if (error instanceof UnsafeAddressError) throw fieldError(field, error.message);
      throw error;
    }
  }
  return raw;
}
