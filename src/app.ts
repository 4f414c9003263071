import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { type Kysely, sql } from 'kysely';
import { checkRouteListed, enforceRoles } from './accounts/permissions.js';
import { accountRoutes, inviteRoutes } from './accounts/routes.js';
import { authenticate } from './auth/authenticate.js';
import { authRoutes } from './auth/routes.js';
import { tokenRoutes } from './auth/token-routes.js';
import { contactRoutes } from './contacts/routes.js';
import { Contact } from './contacts/schemas.js';
import { customFieldRoutes } from './custom-fields/routes.js';
import { CustomField, CustomFieldValue } from './custom-fields/schemas.js';
import { DatabaseOutage } from './db/outage.js';
import { ReadRouting } from './db/read-routing.js';
import type { Database } from './db/schema.js';
import { demoRoutes } from './demo/routes.js';
import { exportRoutes } from './exports/routes.js';
import type { Api, AppDeps } from './http/api.js';
import { clientNetwork, trustOf } from './http/client-address.js';
import { dashboardRoutes } from './http/dashboard.js';
import {
  clientErrorHandler,
  frameworkErrors,
  registerErrorHandling,
} from './http/error-handler.js';
import { badRequest, HttpError } from './http/errors.js';
import { errorForLog, RequestLog, requestForLog, requestIdOf } from './http/log.js';
import { metricsAccess } from './http/metrics-access.js';
import { fenceWrites } from './http/read-your-writes.js';
import { ErrorBody } from './http/schemas.js';
import { addSecurityHeaders, docsPolicy } from './http/security-headers.js';
import { validatorCompiler } from './http/validation.js';
import { assembleIngest } from './ingest/assemble.js';
import { Beacon } from './ingest/beacon.js';
import { createCollect } from './ingest/collect.js';
import { backlogMetrics } from './ingest/inbox.js';
import { collectorRoutes } from './ingest/routes.js';
import { crmRoutes } from './integrations/crm/routes.js';
import { zapierRoutes } from './integrations/zapier/routes.js';
import { scheduleJobs, serves } from './jobs.js';
import { createMailer } from './mail/transport.js';
import { notificationRoutes } from './notifications/routes.js';
import { unsubscribeRoutes } from './notifications/unsubscribe.js';
import { customValueRoutes } from './organisations/custom-value-routes.js';
import { organisationRoutes } from './organisations/routes.js';
import { Organisation } from './organisations/schemas.js';
import { organisationExists } from './organisations/store.js';
import { interestOf } from './outbox/events.js';
import { markScoringStale, queueForScoring } from './outbox/scoring-queue.js';
import { markSegmentsStale } from './outbox/segment-queue.js';
import { scoringRoutes } from './scoring/routes.js';
import { FiltersSchema } from './segments/filters.js';
import { refreshOrganisations } from './segments/membership.js';
import { Segment, SegmentWithFilters, segmentRoutes } from './segments/routes.js';
import { segmentExists } from './segments/store.js';
import { sessionRoutes } from './sessions/routes.js';
import { Session, SessionEvent } from './sessions/schemas.js';
import { spotterRoutes } from './spotter/routes.js';
import { statsRoutes } from './stats/routes.js';
import { SUBSCRIBERS } from './subscribers.js';
import { trackerRoutes } from './tracker/routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { installationRoutes } from './workspaces/installation-routes.js';
import { workspaceRoutes } from './workspaces/routes.js';
import { PrivacySettings, TrackerFeatures, Workspace } from './workspaces/schemas.js';

/** The whole HTTP service, ready to listen; tests start it on a random port. */
export async function buildApp(deps: AppDeps): Promise<Api> {
  const { config } = deps;
  const trust = trustOf(config.trustProxy);
  // POST /t/collect is answered ahead of Fastify once the collector is set up (beacon.ts).
  const beacon = new Beacon(trust);
  const app = Fastify({
    serverFactory: (handler, options) => beacon.server(handler, options),
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-footfall-csrf"]'],
      serializers: { req: requestForLog, err: errorForLog },
    },
    logController: new RequestLog(),
    trustProxy: trust,
    bodyLimit: 1024 * 1024,
    // Errors met before routing, or by Node's HTTP parser, answer with the contract's body.
    frameworkErrors,
    clientErrorHandler,
    requestIdHeader: false,
    // Keep a caller's own request id when it is sane, so its logs and ours line up.
    genReqId: (request) => requestIdOf(request.headers['x-request-id']),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.decorateRequest('identity', null);
  app.decorateRequest('role', null);
  await app.register(cookie);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // Writes are JSON (415 otherwise); only the collector takes text/plain, in its own scope.
  app.removeContentTypeParser('text/plain');
  // An empty JSON body (POST .../unlink from some clients) is no body, not a parse error.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(badRequest('The request body is not valid JSON.'), undefined);
    }
  });
  // One warning per database outage, not one error per request or job round.
  const outage = new DatabaseOutage(deps.db, app.log);
  app.addHook('onClose', async () => outage.stop());
  registerErrorHandling(app, outage);
  addSecurityHeaders(app);

  for (const schema of [
    ErrorBody,
    Workspace,
    TrackerFeatures,
    PrivacySettings,
    CustomField,
    CustomFieldValue,
    FiltersSchema,
    Segment,
    SegmentWithFilters,
    SessionEvent,
    Session,
    Organisation,
    Contact,
  ]) {
    app.addSchema(schema);
  }
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await sql`SELECT 1`.execute(deps.db);
      return { status: 'ready' };
    } catch {
      reply.status(503);
      return { status: 'database unreachable' };
    }
  });

  if (serves(config.role, 'api')) {
    // First, so that it sees every route registered after it (the collector's too).
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Footfall API',
          version: '1.0.0',
          description:
            'Which organisations visit your website and what they do there. ' +
            'Every /v1 and /radar route needs `Authorization: Bearer <personal access token>`, ' +
            'or the dashboard session cookie with `X-Footfall-CSRF` on writes. ' +
            'IP geolocation by DB-IP (https://db-ip.com), CC BY 4.0.',
        },
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            // The dashboard's browser session (contract §12); writes also send X-Footfall-CSRF.
            cookieAuth: { type: 'apiKey', in: 'cookie', name: 'footfall_session' },
          },
        },
        security: [{ bearerAuth: [] }, { cookieAuth: [] }],
      },
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, index) =>
          typeof json.$id === 'string' ? json.$id : `def-${index}`,
      },
    });
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      uiConfig: { deepLinking: true },
      staticCSP: docsPolicy,
    });

    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  }

  // Failures of the background lookups, never with a visitor's address in them.
  const { collector, resolvers, lookups, worker } = await assembleIngest(
    config,
    deps.db,
    interestOf(SUBSCRIBERS),
    (message) => app.log.warn(message),
  );
  backlogMetrics(collector.metrics.registry, collector.backlog);
  // Lists, exports and stats read from the replica when there is one (db/read-routing.ts).
  const reads = deps.reads ?? ReadRouting.primaryOnly(deps.db);
  reads.metrics(collector.metrics.registry);
  app.get(
    '/metrics',
    { schema: { hide: true }, onRequest: metricsAccess(config.metricsToken) },
    async (_request, reply) => {
      reply.type(collector.metrics.registry.contentType);
      return collector.metrics.registry.metrics();
    },
  );
  if (serves(config.role, 'collector')) {
    // Acknowledged events are in the inbox before the database pool closes.
    app.addHook('onClose', () => collector.flush());
    const collect = createCollect(config, collector, outage, app.log);
    await app.register(async (scope) => collectorRoutes(scope, collector, collect));
    beacon.serve({
      collect,
      outage,
      log: app.log,
      onAnswer: (status) => collector.metrics.requests.inc({ status: String(status) }),
    });
    app.addHook('preClose', async () => beacon.close());
    await app.register(async (scope) =>
      spotterRoutes(scope, deps, { scripts: collector.scripts, resolvers }),
    );
    trackerRoutes(app, deps);
  }
  // Every background job (the inbox, deliveries, segments, retention, lookups) is listed in
  // jobs.ts; which run here depends on the role.
  scheduleJobs(app, deps, collector.metrics.registry, outage, { lookups, worker });
  if (!serves(config.role, 'api')) return app;

  const mailer = deps.mailer ?? createMailer(config);
  if (mailer && !deps.mailer) app.addHook('onClose', async () => mailer.close());
  await app.register(async (browser) => {
    authRoutes(browser, deps, mailer);
    inviteRoutes(browser, deps);
  });
  await app.register(async (scope) => dashboardRoutes(scope));
  // Unsubscribe links in alert e-mails: no login, a form body from one-click clients.
  await app.register(async (scope) => unsubscribeRoutes(scope, deps));

  await app.register(async (api) => {
    api.addHook('onRoute', checkRouteListed);
    api.addHook('onRequest', authenticate(deps));
    await api.register(rateLimit, {
      max: config.rateLimitPerMinute,
      timeWindow: 60_000,
      hook: 'preValidation',
      // Per user: every token and browser session of one user share the budget, so making
      // more tokens does not multiply it.
      keyGenerator: (request) =>
        request.identity ? `user:${request.identity.userId}` : clientNetwork(request),
      errorResponseBuilder: (_request, context) =>
        new HttpError(
          429,
          `Rate limit of ${context.max} requests per minute reached; retry in ${context.after}.`,
        ),
    });
    // After the rate limit: a member's role is judged before the request's content is.
    api.addHook('preValidation', enforceRoles(deps.db));
    // A user's write is on the replica before their next list, export or stats read is.
    api.addHook('onSend', fenceWrites(reads));
    accountRoutes(api, deps, mailer);
    tokenRoutes(api, deps);
    workspaceRoutes(api, deps);
    demoRoutes(api, deps);
    installationRoutes(api, deps);
    // Segments and scoring rules evaluate conditions on custom fields: they are told of changes.
    const customFieldListeners = {
      fieldsChanged: async (db: Kysely<Database>, workspaceId: string) => {
        await markSegmentsStale(db, workspaceId);
        await markScoringStale(db, workspaceId);
      },
      valuesChanged: async (trx: Kysely<Database>, workspaceId: string, ids: string[]) => {
        await refreshOrganisations(trx, workspaceId, ids);
        await queueForScoring(trx, workspaceId, ids);
      },
    };
    customFieldRoutes(api, deps, customFieldListeners);
    customValueRoutes(api, deps, customFieldListeners);
    segmentRoutes(api, deps);
    // organisations/ and segments/ reach sessions/ and notifications/ through their imports, so
    // these two are given the checks of the segments and organisations a request names.
    sessionRoutes(api, deps, reads, { segmentExists, organisationExists });
    statsRoutes(api, deps, reads);
    organisationRoutes(api, deps, reads);
    scoringRoutes(api, deps);
    zapierRoutes(api, deps);
    crmRoutes(api, deps);
    contactRoutes(api, deps, reads);
    exportRoutes(api, deps, reads);
    webhookRoutes(api, deps);
    notificationRoutes(api, deps, { segmentExists });
  });

  return app;
}
