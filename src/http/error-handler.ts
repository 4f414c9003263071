import type { FastifyError, FastifyInstance } from 'fastify';
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

/** Maps every error to the contract's `{success, message, errors?}` body. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    let status = 500;
    let body: ErrorBody = { success: false, message: 'Something went wrong on our side.' };
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
    } else if (error.statusCode === 429) {
      status = 429;
      body.message = 'Too many requests; slow down and retry after the time in Retry-After.';
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      status = error.statusCode;
      body.message = error.message;
    }
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    reply.status(status).send(body);
  });

  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).send({ success: false, message: 'Not found.' } satisfies ErrorBody);
  });
}
