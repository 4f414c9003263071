import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseOutage } from '../db/outage.js';
import { type FieldErrors, HttpError } from './errors.js';
import { fieldErrors } from './validation.js';

interface ErrorBody {
  success: false;
  message: string;
  errors?: FieldErrors;
}

/** Fastify's own errors that are the client's fault, with the contract's status and words. */
const FRAMEWORK_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'The request body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'The request body is empty; send a JSON object.'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'The request body is too large.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'Send the request body as application/json.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'The Content-Length header does not match the body.'],
};

const GENERIC = 'Something went wrong on our side.';

/** Errors Fastify meets before a route is found, with the contract's status and words. */
const ROUTING_ERRORS: Record<string, [number, string]> = {
  FST_ERR_BAD_URL: [400, 'The URL is not validly percent-encoded.'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'A part of the URL path is too long.'],
};

/** Fastify's `frameworkErrors` option: routing errors get the contract's body too. */
export function frameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const [status, message] = ROUTING_ERRORS[error.code] ?? [500, GENERIC];
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  reply
    .status(status)
    .header('x-request-id', request.id)
    .send({ success: false, message } satisfies ErrorBody);
  // Fastify writes no line of its own for a request answered before routing (http/log.ts).
  request.log.info({ req: request, res: { statusCode: status } }, 'request completed');
}

/** Errors Node's HTTP parser meets, answered on the socket before any request exists. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request line or headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive.'],
};

/** Fastify's `clientErrorHandler` option: the contract's body instead of Fastify's own. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [
    400,
    'The request is not valid HTTP.',
  ];
  const body = JSON.stringify({ success: false, message } satisfies ErrorBody);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const UNAVAILABLE = 'The database is not reachable at the moment; try again shortly.';

/** How an error thrown while answering is answered. */
export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** Not an answer anyone chose: the caller logs it as a failure. */
  unexpected: boolean;
}

/**
 * The answer to an error a handler threw: an HttpError as it says; a database that cannot be
 * reached 503 with Retry-After, noted once by `outage` rather than logged per request; any
 * other error a 500 with a generic message. Fastify's handler below and the collector's door
 * (ingest/beacon.ts) both answer so.
 */
export function answerTo(error: unknown, outage: DatabaseOutage): ErrorAnswer {
  if (error instanceof HttpError) {
    const body: ErrorBody = {
      success: false,
      message: error.message,
      ...(error.errors && { errors: error.errors }),
    };
    // A 5xx HttpError is an answer a route chose, and the route logged its cause.
    return { status: error.statusCode, body, headers: error.headers, unexpected: false };
  }
  if (outage.report(error)) {
    return {
      status: 503,
      body: { success: false, message: UNAVAILABLE },
      headers: { 'retry-after': '5' },
      unexpected: false,
    };
  }
  return { status: 500, body: { success: false, message: GENERIC }, headers: {}, unexpected: true };
}

/** Fastify's own client errors (validation, parsing, limits) with the contract's body. */
function clientAnswer(error: FastifyError): ErrorAnswer | null {
  const answer = (status: number, body: ErrorBody) => ({
    status,
    body,
    headers: {},
    unexpected: false,
  });
  if (error.validation) {
    // A path id that is not a UUID cannot name anything.
    if (error.validationContext === 'params') {
      return answer(404, { success: false, message: 'Not found.' });
    }
    const errors = fieldErrors(error.validation as Parameters<typeof fieldErrors>[0]);
    const first = Object.values(errors)[0]?.[0] ?? 'The given data was invalid.';
    return answer(422, { success: false, message: first, errors });
  }
  const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
  if (known) return answer(known[0], { success: false, message: known[1] });
  if (error.statusCode === 429) {
    const message = 'Too many requests; slow down and retry after the time in Retry-After.';
    return answer(429, { success: false, message });
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return answer(error.statusCode, { success: false, message: error.message });
  }
  return null;
}

/** Maps every error to the contract's `{success, message, errors?}` body. */
export function registerErrorHandling(app: FastifyInstance, outage: DatabaseOutage): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    const answer =
      (!(error instanceof HttpError) && clientAnswer(error)) || answerTo(error, outage);
    if (answer.unexpected) request.log.error({ err: error }, 'request failed');
    reply.status(answer.status).headers(answer.headers).send(answer.body);
  });

  app.setNotFoundHandler((request, reply) => {
    // A known path asked with a method it does not take is 405, not 404. A wildcard route
    // (the API docs' static files) matches every path below it and says nothing about one.
    const allowed = METHODS.filter((method) => {
      const route = app.findRoute({ method, url: request.url });
      return route !== null && !('*' in ((route.params ?? {}) as object));
    });
    if (allowed.length > 0) {
      reply
        .status(405)
        .header('allow', allowed.join(', '))
        .send({
          success: false,
          message: `${request.method} is not allowed here; use ${allowed.join(', ')}.`,
        } satisfies ErrorBody);
      return;
    }
    reply.status(404).send({ success: false, message: 'Not found.' } satisfies ErrorBody);
  });
}
