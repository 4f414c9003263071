import type { FastifyRequest } from 'fastify';
import type { TokenIdentity, Tokens } from '../auth/tokens.js';
import { unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the bearer hook on every authenticated route. */
    identity: TokenIdentity | null;
  }
}

/** The onRequest hook of every /v1 and /radar route: a valid personal access token or 401. */
export function bearerAuth(tokens: Tokens) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) {
      throw unauthorized('Authentication required: send Authorization: Bearer <token>.', false);
    }
    const identity = await tokens.verify(match[1]);
    if (!identity) {
      throw unauthorized('The access token is invalid, expired or revoked.', true);
    }
    request.identity = identity;
  };
}

/** The caller's operator id; only valid on authenticated routes. */
export function operatorOf(request: FastifyRequest): string {
  if (!request.identity) throw unauthorized('Authentication required.', false);
  return request.identity.operatorId;
}
