import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

type Limit = ReturnType<FastifyInstance['createRateLimit']>;

/**
 * One preHandler that applies several limits in turn. The plugin's own handlers share one
 * "already ran" flag per request, so of two on a route only the first ever counted.
 */
export function rateLimits(what: string, limits: Limit[]) {
  return async (request: FastifyRequest): Promise<void> => {
    for (const limit of limits) {
      const result = await limit(request);
      if (!result.isAllowed && result.isExceeded) {
        const seconds = String(result.ttlInSeconds);
        throw new HttpError(429, `${what}; retry in ${seconds} s.`, undefined, {
          'retry-after': seconds,
        });
      }
    }
  };
}
