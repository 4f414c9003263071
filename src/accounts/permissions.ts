import type { FastifyRequest, RouteOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database, Role } from '../db/schema.js';
import { userOf } from '../http/auth.js';
import { HttpError, notFound } from '../http/errors.js';
import { isUuid } from '../http/validation.js';
import { membershipOf } from './store.js';

/** What a route does to a workspace, in the words of contract §12's permission table. */
export type Action = 'read' | 'write' | 'settings' | 'members' | 'delete';

export const ROLE_ACTIONS: Record<Role, ReadonlySet<Action>> = {
  owner: new Set(['read', 'write', 'settings', 'members', 'delete']),
  admin: new Set(['read', 'write', 'settings', 'members']),
  member: new Set(['read', 'write']),
};

const WS = '/v1/workspaces/{}';

/**
 * Every route under /v1/workspaces/{uuid} that is not a plain read, with its action. This
 * table is the one place roles are enforced; a write route missing here stops the app
 * from starting, so no route can be added without a decision.
 */
export const WORKSPACE_ACTIONS: Record<string, Action> = {
  [`PATCH ${WS}`]: 'settings',
  [`DELETE ${WS}`]: 'delete',
  [`POST ${WS}/unlink`]: 'settings',
  [`PATCH ${WS}/tracker-features`]: 'settings',
  [`PATCH ${WS}/privacy`]: 'settings',
  [`PATCH ${WS}/filters`]: 'settings',
  [`POST ${WS}/custom-fields`]: 'settings',
  [`PATCH ${WS}/custom-fields/{}`]: 'settings',
  [`DELETE ${WS}/custom-fields/{}`]: 'settings',
  [`POST ${WS}/notifications`]: 'settings',
  [`PATCH ${WS}/notifications/{}`]: 'settings',
  [`DELETE ${WS}/notifications/{}`]: 'settings',
  [`POST ${WS}/notifications/{}/test`]: 'settings',
  [`POST ${WS}/users/invite`]: 'members',
  [`PATCH ${WS}/users/{}`]: 'members',
  // Also a member leaving: allowed for oneself whatever the role (see `permits`).
  [`DELETE ${WS}/users/{}`]: 'members',
  [`POST ${WS}/tags`]: 'write',
  [`POST ${WS}/organisations`]: 'read',
  [`PATCH ${WS}/organisations/{}`]: 'write',
  [`PUT ${WS}/scoring`]: 'settings',
  [`DELETE ${WS}/scoring`]: 'settings',
  [`POST ${WS}/scoring/preview`]: 'read',
  [`PUT ${WS}/excluded-domains`]: 'settings',
  [`PUT ${WS}/my-digest`]: 'write',
  [`POST ${WS}/organisations/{}/tags`]: 'write',
  [`DELETE ${WS}/organisations/{}/tags`]: 'write',
  [`PATCH ${WS}/organisations/{}/custom-fields`]: 'write',
  [`PUT ${WS}/organisations/{}/custom-fields/{}`]: 'write',
  [`DELETE ${WS}/organisations/{}/custom-fields/{}`]: 'write',
  [`POST ${WS}/segments`]: 'write',
  [`PATCH ${WS}/segments/{}`]: 'write',
  [`DELETE ${WS}/segments/{}`]: 'write',
  [`PUT ${WS}/contacts/{}/reveal-email`]: 'read',
  // Zapier hooks (contract §18): admins, reading included.
  [`GET ${WS}/zapier/hooks`]: 'settings',
  [`POST ${WS}/zapier/hooks`]: 'settings',
  [`DELETE ${WS}/zapier/hooks/{}`]: 'settings',
  // CRM connections (contract §18): admins, reading included (the settings hold a token).
  [`GET ${WS}/integrations`]: 'settings',
  [`PUT ${WS}/integrations/{}`]: 'settings',
  [`DELETE ${WS}/integrations/{}`]: 'settings',
  [`POST ${WS}/integrations/{}/sync`]: 'settings',
};

const READS = new Set(['GET', 'HEAD']);
const WORKSPACE_ROUTE = /^\/v1\/workspaces\/:([A-Za-z]+)(?:\/|$)/;

/** `PATCH /v1/workspaces/:uuid/users/:userUuid` → `PATCH /v1/workspaces/{}/users/{}`. */
export const routeKey = (method: string, url: string) =>
  `${method} ${url.replace(/:[A-Za-z]+/g, '{}')}`;

/** The action of a workspace route, or null for routes outside any workspace. */
export function actionOf(method: string, url: string): Action | null {
  if (!WORKSPACE_ROUTE.test(url)) return null;
  return WORKSPACE_ACTIONS[routeKey(method, url)] ?? (READS.has(method) ? 'read' : null);
}

/** onRoute: refuses to register a workspace write route that the table does not name. */
export function checkRouteListed(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  for (const method of methods) {
    if (WORKSPACE_ROUTE.test(route.url) && actionOf(method, route.url) === null) {
      throw new Error(`${routeKey(method, route.url)} has no entry in WORKSPACE_ACTIONS.`);
    }
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's role in the route's workspace, set by `enforceRoles`. */
    role: Role | null;
  }
}

/**
 * preValidation of every authenticated route: a workspace the caller is not a member of is
 * 404 (as if missing, before anything about the request is judged); a role that does not
 * allow the route's action is 403.
 */
export function enforceRoles(db: Kysely<Database>) {
  return async (request: FastifyRequest): Promise<void> => {
    const url = request.routeOptions.url ?? '';
    const match = WORKSPACE_ROUTE.exec(url);
    if (!match?.[1]) return;
    const params = request.params as Record<string, string | undefined>;
    const workspaceId = params[match[1]] ?? '';
    if (!isUuid(workspaceId)) throw notFound('Workspace not found.');
    const userId = userOf(request);
    const role = await membershipOf(db, userId, workspaceId);
    if (!role) throw notFound('Workspace not found.');
    request.role = role;
    const action = actionOf(request.method, url) ?? 'settings';
    if (!permits(role, action, request, userId)) {
      throw new HttpError(403, `Your role (${role}) does not allow this in the workspace.`);
    }
  };
}

function permits(role: Role, action: Action, request: FastifyRequest, userId: string): boolean {
  if (ROLE_ACTIONS[role].has(action)) return true;
  // Leaving: anyone may remove themselves (the last owner is refused by the store).
  const params = request.params as Record<string, string | undefined>;
  return request.method === 'DELETE' && action === 'members' && params.userUuid === userId;
}
