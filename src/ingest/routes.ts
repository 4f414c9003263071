import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { Api } from '../http/api.js';
import { clientIp } from '../http/client-address.js';
import { badRequest } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import { CollectBody, MAX_BODY_BYTES, MAX_EVENTS } from './body.js';
import type { Collect } from './collect.js';
import type { Collector } from './collector.js';

const anyOrigin = (reply: FastifyReply) => reply.header('access-control-allow-origin', '*');
// The tracker reads Retry-After on a 503 or 429 to know when to send again (contract §19).
const readable = (reply: FastifyReply) =>
  anyOrigin(reply).header('access-control-expose-headers', 'retry-after');

/**
 * POST /t/collect (contract §5), answered 202 once its kept events are in the inbox
 * (contract §19). Requests over HTTP are answered by beacon.ts before they reach Fastify;
 * this route documents the endpoint in the API reference and answers `inject`, with the
 * same `collect`.
 */
export async function collectorRoutes(app: Api, collector: Collector, collect: Collect) {
  // Browsers send text/plain to avoid a CORS preflight; the body is JSON all the same.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(String(body)));
    } catch {
      done(badRequest('The body is not valid JSON.'), undefined);
    }
  });

  app.addHook('onResponse', async (_request, reply) => {
    collector.metrics.requests.inc({ status: String(reply.statusCode) });
  });

  // A beacon endpoint, logged only when it fails (http/log.ts). Pages of every site post
  // here, so any origin may: answered here, as a CORS plugin would answer OPTIONS on every
  // path of the server.
  const beacon = {
    config: { crossOrigin: true },
    schema: { hide: true },
  } as const;
  app.options('/t/collect', beacon, async (_request, reply) =>
    anyOrigin(reply)
      .header('access-control-allow-methods', 'POST')
      .header('access-control-allow-headers', 'content-type')
      .header('access-control-max-age', '86400')
      .status(204)
      .send(),
  );
  app.post(
    '/t/collect',
    {
      bodyLimit: MAX_BODY_BYTES,
      onRequest: async (_request, reply) => void readable(reply),
      config: beacon.config,
      schema: {
        tags: ['Collector'],
        summary: "Record a visit's events (the tracking script sends them; no token)",
        description:
          'The tracking script posts here as text/plain (no CORS preflight) or JSON, from any ' +
          'origin. 202 once the events are durably stored; sessions and organisations follow ' +
          'within seconds. Each event may carry an `id` (UUID): an event id is stored once per ' +
          'workspace, so a request sent again stores nothing twice. One bad value refuses the whole ' +
          `batch (400); at most ${MAX_EVENTS} events and ${MAX_BODY_BYTES / 1024} KB (413). ` +
          'Unknown script 404, unlinked 410; 503 with Retry-After when the events could not ' +
          'be stored or too many wait to be processed: send them again.',
        security: [],
        body: CollectBody,
        response: {
          202: Type.Object({ accepted: Type.Integer({ minimum: 0 }) }),
          ...errorResponses(400, 404, 410, 413, 429, 503),
        },
      },
      // The body is checked by parseCollectBody, whose messages name the field and which
      // refuses a whole batch on one bad value; the schema above documents it.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const answer = await collect({
        body: request.body,
        ip: clientIp(request),
        userAgent: request.headers['user-agent'],
        gpc: request.headers['sec-gpc'] === '1',
        requestId: request.id,
      });
      reply.status(202);
      return answer;
    },
  );
}
