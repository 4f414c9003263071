import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReadRouting } from '../db/read-routing.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * An onSend hook: after a user's write succeeded, and before they get the answer (so no
 * read of theirs can overtake it, on this process or another), their reads wait for the
 * replica to replay it. Every write route is covered, whoever adds one.
 */
export function fenceWrites(reads: ReadRouting) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (
      reads.hasReplica &&
      !READS.has(request.method) &&
      reply.statusCode < 400 &&
      request.identity
    ) {
      await reads.fence(request.identity.userId);
    }
    return payload;
  };
}
