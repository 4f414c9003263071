import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isLoopback } from './client-address.js';
import { HttpError } from './errors.js';

// A proxy on this machine connects from loopback on behalf of anyone; these say it did.
const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Who may read /metrics: with METRICS_TOKEN, whoever sends it as a bearer token; without,
 * only clients on this machine, judged by the connection's own address.
 */
export function metricsAccess(token: string | null) {
  const expected = token === null ? null : digest(`Bearer ${token}`);
  return async (request: FastifyRequest): Promise<void> => {
    if (expected) {
      const given = request.headers.authorization;
      if (given !== undefined && timingSafeEqual(digest(given), expected)) return;
      throw new HttpError(401, 'Send the metrics token as a bearer token.', undefined, {
        'www-authenticate': 'Bearer realm="metrics"',
      });
    }
    const local =
      isLoopback(request.raw.socket.remoteAddress) &&
      !PROXY_HEADERS.some((name) => request.headers[name] !== undefined);
    if (!local) {
      throw new HttpError(
        403,
        'Metrics are answered to this machine only; set METRICS_TOKEN to read them from elsewhere.',
      );
    }
  };
}
