import { Type } from '@sinclair/typebox';
import type { Api, AppDeps } from '../http/api.js';
import { HttpError, notFound } from '../http/errors.js';
import { findTrackingScript } from '../ingest/scripts.js';
import { trackerScript } from './build.js';

/** GET /t/{tracking_script_id}.js: the tracker with the workspace's flags built in. */
export function trackerRoutes(app: Api, deps: AppDeps): void {
  app.get(
    '/t/:file',
    {
      config: { crossOrigin: true },
      schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 80 }) }) },
    },
    async (request, reply) => {
      const match = /^([A-Za-z0-9_-]{10,64})\.js$/.exec(request.params.file);
      if (!match?.[1]) throw notFound();
      // Read fresh, not cached: a flag change must apply on the very next page load.
      const script = await findTrackingScript(deps.db, match[1]);
      if (!script) throw notFound('Unknown tracking script.');
      if (script.revoked) throw new HttpError(410, 'This tracking script was unlinked.');
      // Without PUBLIC_URL the script gets paths, which it resolves against its own address:
      // never the Host header, which any client (and so a cache in front) could set.
      const base = deps.config.publicUrl ?? '';
      const { body, etag } = await trackerScript({
        id: script.id,
        endpoint: `${base}/t/collect`,
        spotter: `${base}/spotter/v1/${script.id}`,
        gpc: script.honorGpc,
        forms: script.features.form_tracking,
        clicks: script.features.click_tracking,
        downloads: script.features.download_tracking,
      });
      reply
        .header('cache-control', 'no-cache')
        .header('etag', etag)
        .header('access-control-allow-origin', '*')
        .type('application/javascript; charset=utf-8');
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
      return body;
    },
  );
}
