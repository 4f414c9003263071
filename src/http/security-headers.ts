import type { FastifyHelmetOptions } from '@fastify/helmet';

/**
 * Headers for a JSON API: nothing in an answer may run, load or be framed. Pages that need
 * more (the API reference at /docs) set their own policy.
 */
export const securityHeaders: FastifyHelmetOptions = {
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

/** For what other sites' pages load or call: the tracker script, the collector, Spotter. */
export const crossOrigin = { crossOriginResourcePolicy: { policy: 'cross-origin' } } as const;

/** The API reference page: swagger-ui's own script, styles and data: images, nothing else. */
export const docsPolicy =
  "default-src 'self'; base-uri 'self'; object-src 'none'; frame-ancestors 'none'; " +
  "img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; form-action 'self'";
