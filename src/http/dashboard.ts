import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Where `vite build` puts the dashboard (web/vite.config.ts), from src/ and dist/ alike. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../dist/web', import.meta.url));

/**
 * The dashboard's own policy: its scripts and styles from this server only, API calls to this
 * server only. Inline style attributes are allowed for the chart and bar widths.
 */
export const dashboardPolicy =
  "default-src 'self'; base-uri 'self'; object-src 'none'; frame-ancestors 'none'; " +
  "script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; " +
  "connect-src 'self'; form-action 'self'";

/** Paths the dashboard answers with index.html; its router takes it from there. */
const PAGES = [
  '/',
  '/sign-in',
  '/welcome',
  '/setup/:secret',
  '/reset/:secret',
  '/invite/:secret',
  '/w/*',
];

/**
 * Serves the built dashboard: hashed assets cached for a year, index.html never cached, so
 * a new release is picked up on the next page load. Without a build (a checkout that has not
 * run `npm run build`) the pages say how to make one instead of a bare 404.
 */
export async function dashboardRoutes(app: FastifyInstance, dir = DASHBOARD_DIR): Promise<void> {
  const index = `${dir}/index.html`;
  const built = existsSync(index);
  const html = built
    ? readFileSync(index, 'utf8')
    : '<!doctype html><html lang="en"><title>Footfall</title><main><h1>The dashboard is not built</h1><p>Run <code>npm run build</code> (or <code>npm start</code>, which builds it) and reload.</p></main></html>';

  if (built) {
    await app.register(fastifyStatic, {
      root: `${dir}/assets`,
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      wildcard: true,
      cacheControl: true,
      immutable: true,
      maxAge: '365d',
      // A missing asset is a plain 404, not the dashboard page.
      setHeaders: (response) => response.setHeader('content-security-policy', dashboardPolicy),
    });
  }
  for (const path of PAGES) {
    app.get(path, { schema: { hide: true } }, (_request, reply) => {
      reply
        .header('cache-control', 'no-cache')
        .header('content-security-policy', dashboardPolicy)
        .header('x-frame-options', 'DENY')
        .type('text/html; charset=utf-8')
        .send(html);
    });
  }
}
