import rateLimit from '@fastify/rate-limit';
import { Type } from '@sinclair/typebox';
import type { Api, AppDeps } from '../http/api.js';
import { clientIp, clientNetwork } from '../http/client-address.js';
import { HttpError, notFound } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import { type Resolver, resolveOrganisation } from '../identify/resolver.js';
import type { ScriptDirectory } from '../ingest/scripts.js';
import { publicProfile } from '../organisations/public-profile.js';
import { isSiteOrigin } from './origin.js';

// Per visitor (the visitor id is in the URL), in the browser only.
const CACHE_CONTROL = 'private, max-age=300';

const SpotterOrganisation = Type.Object(
  {
    name: Type.String(),
    website: Type.String(),
    logo: Type.String(),
    industry: Type.String(),
    size: Type.String(),
    country: Type.String(),
    custom_fields: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Values of the custom fields marked visible_in_spotter, and no others',
    }),
  },
  { additionalProperties: false },
);

/**
 * GET /spotter/v1/{tracking_script_id}: the organisation of the browser asking, for the
 * workspace's own site to adapt its pages. Public (no token), read by the site's pages.
 */
export async function spotterRoutes(
  app: Api,
  deps: AppDeps,
  /** The collector's script directory, and the resolver chain it names visitors with. */
  visitors: { scripts: ScriptDirectory; resolvers: Resolver[] },
) {
  await app.register(rateLimit, {
    max: deps.config.spotterRateLimitPerIp,
    timeWindow: 60_000,
    keyGenerator: (request) => `spotter ${clientNetwork(request)}`,
    errorResponseBuilder: (_request, context) =>
      new HttpError(429, `Too many Spotter requests; retry in ${context.after}.`),
  });

  app.get(
    '/spotter/v1/:trackingScriptId',
    {
      logLevel: 'warn',
      config: { crossOrigin: true },
      schema: {
        tags: ['Spotter'],
        summary: "The visitor's organisation, for the workspace's own site (no token)",
        description:
          'Resolves the caller by its address and visitor id as the collector does. Answers ' +
          'only the name, website, logo, industry, size, country and the custom fields ' +
          'marked visible_in_spotter. Readable (CORS) only by pages of the workspace’s site.',
        security: [],
        params: Type.Object({ trackingScriptId: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({
          visitor: Type.Optional(
            Type.String({ format: 'uuid', description: 'the tracker’s visitor id (anonymous_id)' }),
          ),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Object({ organisation: Type.Union([SpotterOrganisation, Type.Null()]) }),
          }),
          ...errorResponses(403, 404, 410, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const script = await visitors.scripts.find(request.params.trackingScriptId);
      if (!script) throw notFound('Unknown tracking script.');
      if (script.revoked) throw new HttpError(410, 'This tracking script was unlinked.');
      reply.header('vary', 'Origin, Sec-GPC');
      const origin = request.headers.origin;
      if (origin !== undefined) {
        if (!isSiteOrigin(script.siteUrl, origin)) {
          throw new HttpError(403, "Spotter answers pages of the workspace's own site only.");
        }
        reply.header('access-control-allow-origin', origin);
      }
      reply.header('cache-control', CACHE_CONTROL);
      if (script.honorGpc && request.headers['sec-gpc'] === '1') {
        return { success: true, data: { organisation: null } };
      }
      const hint = await resolveOrganisation(visitors.resolvers, {
        ip: clientIp(request),
        workspaceId: script.workspaceId,
        visitorId: request.query.visitor?.toLowerCase() ?? '',
        emails: [],
      });
      const organisation = hint
        ? await publicProfile(deps.db, script.workspaceId, hint.domain)
        : null;
      return { success: true, data: { organisation } };
    },
  );
}
