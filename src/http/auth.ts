import type { FastifyRequest } from 'fastify';
import { unauthorized } from './errors.js';

/** Who a request speaks for: a user, through a personal access token or a browser session. */
export interface Identity {
  userId: string;
  /** The token's id when the request came with a bearer token. */
  tokenId: string | null;
  /** The browser session's hash when the request came with the session cookie. */
  sessionHash: Buffer | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook on every /v1 and /radar route. */
    identity: Identity | null;
  }
}

/** The caller's user id; only valid on authenticated routes. */
export function userOf(request: FastifyRequest): string {
  if (!request.identity) throw unauthorized('Authentication required.', false);
  return request.identity.userId;
}
