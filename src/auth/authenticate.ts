import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { HttpError, unauthorized } from '../http/errors.js';
import type { Tokens } from '../http/tokens.js';
import { type BrowserSession, findBrowserSession } from './browser-sessions.js';
import { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE, setSessionCookies } from './cookies.js';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

// Compared as bytes: a header of the right length in characters but not in bytes (Latin-1
// letters) made timingSafeEqual throw, and the request answer 500 instead of 403.
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The onRequest hook of every /v1 and /radar route: a bearer token, or the dashboard's
 * session cookie (whose writes must echo the CSRF cookie in a header), or 401.
 */
export function authenticate(deps: { db: Kysely<Database>; tokens: Tokens; config: Config }) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const header = request.headers.authorization;
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match?.[1]) {
        throw unauthorized('Authentication required: send Authorization: Bearer <token>.', false);
      }
      const identity = await deps.tokens.verify(match[1]);
      if (!identity) {
        throw unauthorized('The access token is invalid, expired or revoked.', true);
      }
      request.identity = { ...identity, sessionHash: null };
      return;
    }
    const session = await cookieSession(request, reply, deps);
    if (!session) {
      throw unauthorized(
        request.cookies[SESSION_COOKIE]
          ? 'Your session has ended; sign in again.'
          : 'Authentication required: send Authorization: Bearer <token>, or sign in.',
        false,
      );
    }
    request.identity = { userId: session.userId, tokenId: null, sessionHash: session.idHash };
  };
}

/**
 * The browser session the request's cookie names, renewed (with its cookies) when due;
 * undefined without a live one. A write must echo the CSRF cookie in X-Footfall-CSRF (403).
 */
export async function cookieSession(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: { db: Kysely<Database>; config: Config },
): Promise<BrowserSession | undefined> {
  const secret = request.cookies[SESSION_COOKIE];
  if (!secret) return undefined;
  const session = await findBrowserSession(deps.db, secret);
  if (!session) return undefined;
  if (!SAFE_METHODS.has(request.method)) {
    const sent = request.headers[CSRF_HEADER];
    const cookie = request.cookies[CSRF_COOKIE];
    if (
      typeof sent !== 'string' ||
      !cookie ||
      !sameText(sent, cookie) ||
      !sameText(sent, session.csrf)
    ) {
      throw new HttpError(
        403,
        'A signed-in change must carry the X-Footfall-CSRF header equal to the footfall_csrf cookie.',
      );
    }
  }
  if (session.renewed) setSessionCookies(reply, deps.config, { secret, ...session });
  return session;
}
