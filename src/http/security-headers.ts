import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Loaded or called by other sites' pages (the tracker, the collector, Spotter). */
    crossOrigin?: boolean;
  }
}

/**
 * Headers for a JSON API: nothing in an answer may run, load or be framed. Pages that need
 * more (the API reference at /docs) set their own policy.
 */
const forApi: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
    },
  },
  xFrameOptions: { action: 'deny' },
};

/** The API reference page: swagger-ui's own script, styles and data: images, nothing else. */
export const docsPolicy =
  "default-src 'self'; base-uri 'self'; object-src 'none'; frame-ancestors 'none'; " +
  "img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; form-action 'self'";

/** The headers helmet sets for these options, read once. */
function headersOf(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: () => {},
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, () => {});
  return headers;
}

/** helmet's headers for answers other sites' pages may read (the collector's too). */
export const crossOriginHeaders: Readonly<Record<string, string>> = headersOf({
  ...forApi,
  crossOriginResourcePolicy: { policy: 'cross-origin' },
});

/**
 * Every answer carries helmet's headers; routes with `config: { crossOrigin: true }` let
 * other sites load them. The headers are worked out once at start: the Fastify plugin builds
 * helmet again on every request, which cost the collector a quarter of its throughput.
 */
export function addSecurityHeaders(app: FastifyInstance): void {
  const api = headersOf(forApi);
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(request.routeOptions.config?.crossOrigin ? crossOriginHeaders : api);
    done();
  });
}
