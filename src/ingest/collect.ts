import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseOutage } from '../db/outage.js';
import { networkOf } from '../http/client-address.js';
import { HttpError, notFound } from '../http/errors.js';
import { enforceLimits, FixedWindowLimit } from '../http/rate-limits.js';
import { parseCollectBody } from './body.js';
import type { Collector } from './collector.js';

/** A collect request as both of its doors (beacon.ts, routes.ts) hand it over. */
export interface CollectRequest {
  /** The parsed JSON body. */
  body: unknown;
  /** The client's address (http/client-address.ts). */
  ip: string;
  userAgent: string | undefined;
  /** The browser sent Global Privacy Control (`Sec-GPC: 1`). */
  gpc: boolean;
  requestId: string;
}

const unknownScript = () => notFound('Unknown tracking_script_id.');
const unlinkedScript = () => new HttpError(410, 'This tracking script was unlinked.');
const busy = (message: string) => new HttpError(503, message, undefined, { 'retry-after': '5' });

const scriptOf = (body: unknown) => {
  const id = (body as { tracking_script_id?: unknown } | null | undefined)?.tracking_script_id;
  return typeof id === 'string' ? id : '';
};

/**
 * POST /t/collect (contract §5): the number of events accepted once they are in the inbox
 * (contract §19), or an HttpError: 400/413 for the body, 404/410 for the script, 429 past
 * a rate limit, 503 with Retry-After while the backlog is over INGEST_BACKLOG_MAX or the
 * events could not be stored.
 */
export function createCollect(
  config: Config,
  collector: Collector,
  outage: DatabaseOutage,
  log: FastifyBaseLogger,
) {
  const perNetwork = new FixedWindowLimit(config.collectRateLimitPerIp, 60_000);
  const perScript = new FixedWindowLimit(config.collectRateLimitPerScript, 60_000);
  return async (request: CollectRequest): Promise<{ accepted: number }> => {
    // Counted before the body is checked, as a flood of bad bodies is a flood all the same.
    enforceLimits('Too many collect requests', [
      [perNetwork, networkOf(request.ip)],
      [perScript, scriptOf(request.body)],
    ]);
    const collected = parseCollectBody(request.body, new Date());
    const script = await collector.scripts.find(collected.trackingScriptId);
    if (!script) throw unknownScript();
    if (script.revoked) throw unlinkedScript();
    if (collector.backlog.full()) {
      throw busy('Too many events are waiting to be processed; send them again later.');
    }
    let result: Awaited<ReturnType<Collector['ingest']>>;
    try {
      result = await collector.ingest(script, collected, {
        ip: request.ip,
        userAgent: request.userAgent,
        gpc: request.gpc,
      });
    } catch (error) {
      if (!outage.report(error)) {
        log.error({ reqId: request.requestId, err: error }, 'events could not be stored');
      }
      throw busy('The events could not be stored; send them again.');
    }
    // Unlinked or deleted since the cached lookup above; a deleted workspace's id is unknown.
    if ('refused' in result)
      throw result.refused === 'revoked' ? unlinkedScript() : unknownScript();
    return { accepted: result.stored };
  };
}
export type Collect = ReturnType<typeof createCollect>;
