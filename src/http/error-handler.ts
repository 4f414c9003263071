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

/**
 * Maps every error to the contract's `{success, message, errors?}` body. A database that
 * cannot be reached is a 503 with Retry-After, noted once by `outage` rather than logged
 * as a failure of each request.
 */
export function registerErrorHandling(app: FastifyInstance, outage: DatabaseOutage): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    const unreachable = !(error instanceof HttpError) && outage.report(error);
    let status = 500;
    let body: ErrorBody = { success: false, message: GENERIC };
    if (error instanceof HttpError) {
      status = error.statusCode;
      body = {
        success: false,
        message: error.message,
        ...(error.errors && { errors: error.errors }),
      };
      reply.headers(error.headers);
    } else if (error.validation) {
      if (error.validationContext === 'params') {
        // A path id that is not a UUID cannot name anything.
        status = 404;
        body = { success: false, message: 'Not found.' };
      } else {
        const errors = fieldErrors(error.validation as Parameters<typeof fieldErrors>[0]);
        const first = Object.values(errors)[0]?.[0] ?? 'The given data was invalid.';
        status = 422;
        body = { success: false, message: first, errors };
      }
    } else if (error.code && FRAMEWORK_ERRORS[error.code]) {
      [status, body.message] = FRAMEWORK_ERRORS[error.code] as [number, string];
    } else if (unreachable) {
      status = 503;
      body.message = UNAVAILABLE;
      reply.header('retry-after', '5');
    } else if (error.statusCode === 429) {
      status = 429;
      body.message = 'Too many requests; slow down and retry after the time in Retry-After.';
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      status = error.statusCode;
      body.message = error.message;
    }
    // A 5xx HttpError is an answer a route chose, and the route logged its cause.
    if (status >= 500 && !unreachable && !(error instanceof HttpError)) {
      request.log.error({ err: error }, 'request failed');
    }
    reply.status(status).send(body);
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
