import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { CrmName, Database } from '../../db/schema.js';
import type { Resolver } from '../../http/outbound/address-guard.js';
import { requestChecked } from '../../http/outbound/request.js';
import { type Limit, takeToken } from './bucket.js';

/** What went wrong with a call, by what the worker does about it. */
export type CrmProblem =
  /** 401/403: the token was revoked or lacks a scope; only a person can mend it. */
  | 'refused'
  /** 429: the vendor asks to wait `retryAfterMs`. */
  | 'throttled'
  /** No answer, or 5xx: worth trying again later. */
  | 'unavailable'
  /** Another 4xx: the CRM will not take this content; trying again changes nothing. */
  | 'rejected'
  /** Not sent: the connection was disconnected, paused or failed meanwhile. */
  | 'stopped';

export class CrmError extends Error {
  constructor(
    message: string,
    readonly problem: CrmProblem,
    readonly status: number | null = null,
    readonly retryAfterMs = 0,
  ) {
    super(message);
  }
}

/** Everything a vendor client needs to call its CRM for one connection. */
export interface CrmContext {
  db: Kysely<Database>;
  workspaceId: string;
  name: CrmName;
  /** HUBSPOT_API_URL or PIPEDRIVE_API_URL, no trailing slash. */
  baseUrl: string;
  token: string;
  /** ALLOW_PRIVATE_WEBHOOKS: lifts the address guard (local stand-ins in tests). */
  allowPrivate: boolean;
  resolve?: Resolver;
  /** Aborted when the server stops. */
  signal: AbortSignal;
}

export interface CrmRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
}

/** How a vendor speaks: its name in messages, how it authenticates and reports errors. */
export interface Dialect {
  label: string;
  headers(token: string): Record<string, string>;
  /** The vendor's own sentence from an error body, if it has one. */
  errorText(body: unknown): string | undefined;
  /** What a person should do about a refused token. */
  refusedHint: string;
}

// A CRM call is small; one that takes longer than this is not coming back.
const DEADLINE_MS = 20_000;
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
// When a 429 names no time to wait.
const DEFAULT_WAIT_MS = 10_000;

/**
 * One call to a CRM: a token from each of `buckets` first (waiting for it), then the
 * request through the address guard within its deadline; the JSON answer of a 2xx (or
 * 207), or a CrmError saying what to do about the failure.
 */
export async function crmCall<T>(
  ctx: CrmContext,
  dialect: Dialect,
  limits: Record<string, Limit>,
  request: CrmRequest,
  buckets: string[] = ['requests'],
): Promise<{ status: number; body: T }> {
  for (const bucket of buckets) {
    const limit = limits[bucket] as Limit;
    const wait = await takeToken(ctx.db, ctx.workspaceId, ctx.name, bucket, limit);
    if (wait === null) {
      throw new CrmError(`The ${dialect.label} connection no longer sends.`, 'stopped');
    }
    if (wait > 0) await sleep(wait, undefined, { signal: ctx.signal });
  }
  const url = new URL(`${ctx.baseUrl}${request.path}`);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': 'Footfall-CRM-sync/1',
    ...dialect.headers(ctx.token),
  };
  let body: string | undefined;
  if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.body);
  }
  const what = `${request.method} ${request.path}`;
  let answer: Awaited<ReturnType<typeof requestChecked>>;
  try {
    answer = await requestChecked(
      url,
      { method: request.method, headers, body },
      {
        allowPrivate: ctx.allowPrivate,
        resolve: ctx.resolve,
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(DEADLINE_MS)]),
        maxBytes: MAX_ANSWER_BYTES,
      },
    );
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    const reason =
      (error as Error).name === 'TimeoutError' ? 'no answer in time' : (error as Error).message;
    throw new CrmError(`${dialect.label} could not be reached (${what}): ${reason}`, 'unavailable');
  }
  const parsed = parseJson(answer.body);
  const { status } = answer;
  if (status >= 200 && status < 300) {
    if (parsed === undefined) {
      throw new CrmError(
        `${dialect.label} answered ${what} with something other than JSON.`,
        'unavailable',
        status,
      );
    }
    return { status, body: parsed as T };
  }
  const said = firstSentence(dialect.errorText(parsed));
  const detail = said ? `: ${said}.` : '.';
  if (status === 401 || status === 403) {
    throw new CrmError(
      `${dialect.label} refused the token (${status})${detail} ${dialect.refusedHint}`,
      'refused',
      status,
    );
  }
  if (status === 429) {
    const retryAfterMs = retryAfter(answer.headers) ?? DEFAULT_WAIT_MS;
    throw new CrmError(
      `${dialect.label} asked to slow down (429); waiting ${Math.ceil(retryAfterMs / 1000)} s.`,
      'throttled',
      status,
      retryAfterMs,
    );
  }
  if (status >= 500) {
    throw new CrmError(
      `${dialect.label} failed ${what} (${status})${detail}`,
      'unavailable',
      status,
    );
  }
  throw new CrmError(`${dialect.label} refused ${what} (${status})${detail}`, 'rejected', status);
}

/**
 * A vendor's error message up to its first full stop: the rest is usually a link to its
 * documentation, which an admin reading the dashboard does not need.
 */
function firstSentence(text: string | undefined): string | undefined {
  const first = text?.split(/(?<=\.)\s/)[0]?.trim();
  return first ? first.replace(/\.$/, '') : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Retry-After in seconds (or an HTTP date), else Pipedrive's x-ratelimit-reset seconds. */
function retryAfter(headers: Record<string, string | string[] | undefined>): number | null {
  const value = headers['retry-after'] ?? headers['x-ratelimit-reset'];
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  const seconds = Number(text);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, 3600) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.min(at - Date.now(), 3_600_000));
}
