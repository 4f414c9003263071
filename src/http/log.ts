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
