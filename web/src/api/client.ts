import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** The error body of contract §2: a message, and per-field messages on 422. */
export interface ApiError {
  success: false;
  message: string;
  errors?: Record<string, string[]>;
}

/** Thrown by `unwrap` for any non-2xx answer, so TanStack Query shows it as an error. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiError | undefined,
  ) {
    super(body?.message ?? `The server answered ${status}.`);
  }

  /** The error as an ApiFailure: one of status 0 when the server could not be reached. */
  static from(error: unknown): ApiFailure {
    return error instanceof ApiFailure ? error : new ApiFailure(0, undefined);
  }

  /** The first message for a field of the request body, for a form to show beside it. */
  field(name: string): string | undefined {
    return this.body?.errors?.[name]?.[0];
  }

  /** The first message about any field of the request body, else the message of the whole. */
  firstMessage(): string {
    return Object.values(this.body?.errors ?? {}).flat()[0] ?? this.message;
  }
}

function cookie(name: string): string | undefined {
  const pair = document.cookie.split('; ').find((part) => part.startsWith(`${name}=`));
  return pair ? decodeURIComponent(pair.slice(name.length + 1)) : undefined;
}

/** Cookie-authenticated writes carry the CSRF cookie's value in a header (contract §12). */
const csrf: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      request.headers.set('x-footfall-csrf', cookie('footfall_csrf') ?? '');
    }
    return request;
  },
};

/** Listeners told when an answer says the browser session has ended. */
const signedOutListeners = new Set<() => void>();
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

const signedOut: Middleware = {
  onResponse({ response, request }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/auth/')) {
      for (const listener of signedOutListeners) listener();
    }
    return response;
  },
};

export const api = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
});
api.use(csrf, signedOut);

/** The data of a 2xx answer, or an ApiFailure. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiFailure(response.status, error as ApiError | undefined);
  return data as T;
}

/** The `data` field of a 2xx answer's body, or an ApiFailure. */
export async function unwrapData<T>(
  call: Promise<{ data?: { data: T }; error?: unknown; response: Response }>,
): Promise<T> {
  return (await unwrap(call)).data;
}

/** The path parameter of a route under one workspace. */
export function inWorkspace(workspaceUuid: string) {
  return { params: { path: { workspaceUuid } } };
}
