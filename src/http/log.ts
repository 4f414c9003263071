import { randomUUID } from 'node:crypto';
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** A caller's own X-Request-Id when it is sane, so its logs and ours line up; else a new one. */
export const requestIdOf = (given: string | string[] | undefined): string =>
  typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();

interface LoggedError {
  [key: string]: unknown;
  type: string;
  message: string;
  stack: string;
}

/**
 * An error as the log shows it: its kind, message, code and stack, never the other fields
 * PostgreSQL attaches (`detail`, `where`, `hint`...), which quote the rows and values that
 * failed, that is visitors' data.
 */
export function errorForLog(error: unknown): LoggedError {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error), stack: '' };
  const { code, routine } = error as { code?: unknown; routine?: unknown };
  return {
    type: error.name,
    message: error.message,
    ...(typeof code === 'string' && { code }),
    ...(typeof routine === 'string' && { routine }),
    stack: error.stack ?? '',
    ...(error.cause !== undefined && { cause: errorForLog(error.cause) }),
  };
}

/**
 * A request as the log shows it: no client address (raw IPs are never stored, logs
 * included), and no secret of a one-time or unsubscribe link in its path, which would let a
 * log reader use the link first.
 */
export const requestForLog = (request: FastifyRequest) => ({
  id: request.id,
  method: request.method,
  url: request.url.replace(
    /^(\/(?:auth\/)?(?:setup|reset|invites?)\/|\/notifications\/unsubscribe\/)[^/?]+/,
    '$1…',
  ),
});

// Asked for by every page view of every tracked site, or every few seconds by a balancer's
// probes: a line each would bury the rest of the log.
const QUIET_ROUTES = new Set(['/t/:file', '/t/collect', '/healthz', '/readyz']);

/**
 * One log line per request, written once it is answered (Fastify's own writes another on
 * arrival): method, path, status, time and request id. The quiet routes log only when they
 * fail, and not their rate limit's 429s either, which /metrics counts: a flood turned away
 * must not write a line per request.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) {
      reply.log.error({ ...line, err: error }, 'request errored');
      return;
    }
    const status = reply.statusCode;
    const quiet =
      QUIET_ROUTES.has(request.routeOptions.url ?? '') && (status < 400 || status === 429);
    reply.log[quiet ? 'debug' : 'info'](line, 'request completed');
  }
}
