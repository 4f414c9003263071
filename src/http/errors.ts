/** Field name (dotted for nested fields) → the problems with it. */
export type FieldErrors = Record<string, string[]>;

/** An error that maps to one of the contract's status codes and bodies. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string) => new HttpError(400, message);

export const unauthorized = (message: string, tokenWasSent: boolean) =>
  new HttpError(401, message, undefined, {
    'www-authenticate': tokenWasSent
      ? 'Bearer realm="footfall", error="invalid_token"'
      : 'Bearer realm="footfall"',
  });

export const notFound = (message = 'Not found.') => new HttpError(404, message);

/** 422 with one entry per offending field; the message names the first problem. */
export function unprocessable(errors: FieldErrors, message?: string): HttpError {
  const first = Object.values(errors)[0]?.[0];
  const others = Object.values(errors).flat().length - 1;
  const summary =
    message ??
    `${first ?? 'The given data was invalid.'}${others > 0 ? ` (and ${others} more)` : ''}`;
  return new HttpError(422, summary, errors);
}

export const fieldError = (field: string, problem: string) => unprocessable({ [field]: [problem] });
