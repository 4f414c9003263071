import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { findWorkspace, type WorkspaceRow } from './store.js';

/** The caller's workspace, or 404 exactly as if it did not exist. */
export async function requireWorkspace(
  deps: AppDeps,
  request: FastifyRequest,
  workspaceId: string,
): Promise<WorkspaceRow> {
  const workspace = await findWorkspace(deps.db, userOf(request), workspaceId);
  if (!workspace) throw notFound('Workspace not found.');
  return workspace;
}
