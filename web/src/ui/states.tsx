import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiFailure } from '../api/client';

/** What a person sees while data is on its way: says what, and announces it politely. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

/** An error that says what failed and, when there is one, the server's own reason. */
export function ErrorState({
  what,
  error,
  retry,
}: {
  what: string;
  error: unknown;
  retry?: () => void;
}) {
  const reason =
    error instanceof ApiFailure
      ? error.status === 404
        ? 'It does not exist, or you are not a member of its workspace.'
        : error.message
      : 'The server could not be reached. Check your connection.';
  return (
    <div className="state state-error" role="alert">
      <p>
        <strong>Could not load {what}.</strong> {reason}
      </p>
      {retry ? (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/**
 * What a query answered, once it has: until then that `what` is loading, or that it could not
 * be loaded (with Try again when `retry`).
 */
export function Loaded<T>({
  query,
  what,
  retry = false,
  children,
}: {
  query: UseQueryResult<T>;
  what: string;
  retry?: boolean;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) {
    return (
      <ErrorState
        what={what}
        error={query.error}
        retry={retry ? () => void query.refetch() : undefined}
      />
    );
  }
  return children(query.data);
}

/**
 * Why a change failed, as an alert: the server's message (with `fieldFirst`, its first message
 * about a field when it has one), or that the server could not be reached. Nothing without one.
 */
export function ChangeFailed({
  error,
  fieldFirst = false,
}: {
  error: Error | null;
  fieldFirst?: boolean;
}) {
  if (!error) return null;
  return (
    <p className="form-error" role="alert">
      {error instanceof ApiFailure
        ? fieldFirst
          ? error.firstMessage()
          : error.message
        : 'The server could not be reached.'}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state state-empty">{children}</div>;
}
