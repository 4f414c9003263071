import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { fieldError, notFound, unprocessable } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import { isUuid } from '../http/validation.js';

const tags = ['Account'];
const DAY_MS = 86_400_000;

const TokenSchema = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'null: never expires',
  }),
  revoked_at: Type.Null({ description: 'always null: revoked tokens are not listed' }),
});
const NewTokenBody = Type.Object({
  name: Type.String({ maxLength: 100, description: 'what the token is for' }),
  expires_in_days: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()], {
      description:
        'lifetime in days; absent or null: never expires. Made with a token that expires: no later than it (422)',
    }),
  ),
});

const present = (row: { id: string; name: string; created_at: Date; expires_at: Date | null }) => ({
  uuid: row.id,
  name: row.name,
  created_at: row.created_at.toISOString(),
  expires_at: row.expires_at?.toISOString() ?? null,
  revoked_at: null,
});

/**
 * The signed-in user's personal access tokens (the dashboard's Settings → API tokens; the
 * CLI's `footfall tokens` does the same from a shell). A token is shown once, when made.
 */
export function tokenRoutes(app: Api, deps: AppDeps): void {
  app.get(
    '/v1/me/tokens',
    {
      schema: {
        tags,
        summary: 'Your personal access tokens (not revoked), newest first',
        response: {
          200: Type.Object({ success: Type.Boolean(), data: Type.Array(TokenSchema) }),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request) => {
      const rows = await deps.tokens.list(userOf(request));
      return {
        success: true,
        data: rows
          .filter((row) => !row.revoked_at)
          .reverse()
          .map(present),
      };
    },
  );

  app.post(
    '/v1/me/tokens',
    {
      schema: {
        tags,
        summary:
          'Make a personal access token; the answer is the only time it is shown. A token cannot make one that outlives it',
        body: NewTokenBody,
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            data: Type.Object({ ...TokenSchema.properties, token: Type.String() }),
          }),
          ...errorResponses(400, 401, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const name = request.body.name.trim();
      if (!name) throw fieldError('name', 'The name field must not be empty.');
      const days = request.body.expires_in_days ?? null;
      const expiresAt = days === null ? null : new Date(Date.now() + days * DAY_MS);
      await checkOutlives(deps, request, expiresAt);
      const issued = await deps.tokens.issue(userOf(request), name, expiresAt);
      const row = (await deps.tokens.list(userOf(request))).find((t) => t.id === issued.id);
      if (!row) throw notFound('Token not found.');
      reply.status(201);
      return { success: true, data: { ...present(row), token: issued.token } };
    },
  );

  app.delete(
    '/v1/me/tokens/:tokenUuid',
    {
      schema: {
        tags,
        summary: 'Revoke one of your tokens (it stops working at once)',
        params: Type.Object({ tokenUuid: Type.String({ format: 'uuid' }) }),
        response: { 204: Type.Null(), ...errorResponses(401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { tokenUuid } = request.params;
      const mine =
        isUuid(tokenUuid) &&
        (await deps.tokens.list(userOf(request))).some(
          (row) => row.id === tokenUuid && !row.revoked_at,
        );
      if (!mine || !(await deps.tokens.revoke(tokenUuid))) throw notFound('Token not found.');
      reply.status(204);
    },
  );
}

/**
 * 422 when the caller is a token that expires and the new token would outlive it (contract
 * §12): a leaked short-lived token must not be turned into a lasting one.
 */
async function checkOutlives(
  deps: AppDeps,
  request: FastifyRequest,
  expiresAt: Date | null,
): Promise<void> {
  const tokenId = request.identity?.tokenId;
  if (!tokenId) return;
  const caller = await deps.tokens.expiry(tokenId);
  if (!caller || (expiresAt && expiresAt <= caller)) return;
  const days = Math.floor((caller.getTime() - Date.now()) / DAY_MS);
  throw unprocessable(
    {
      expires_in_days: [
        days >= 1
          ? `At most ${days} day${days === 1 ? '' : 's'} for a token made with this one.`
          : 'This token expires within a day: it cannot make another.',
      ],
    },
    `A token cannot make a token that outlives it: this one expires at ${caller.toISOString()}.`,
  );
}
