import type { FastifyRequest } from 'fastify';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { Database, WorkspaceTable } from '../db/schema.js';
import type { AppDeps } from './api.js';
import { userOf } from './auth.js';
import { notFound } from './errors.js';

/**
 * The caller's workspace, which every route under /v1/workspaces/{uuid} starts from: tenancy
 * is ground, so no feature imports another (workspaces/) to find it.
 */

export interface WorkspaceRow {
  id: string;
  name: string;
  url: string;
  usage_limit: number;
  form_tracking: boolean;
  click_tracking: boolean;
  download_tracking: boolean;
  honor_gpc: boolean;
  /** Hosts whose pages may send events; null: the default pair (workspaces/filters.ts). */
  hostnames: string[] | null;
  /** Ranges whose visits are not tracked, in CIDR form. */
  excluded_ip_ranges: string[];
  /** The active tracking script, null after unlink. */
  tracking_script_id: string | null;
  available_tags: string[];
}

export function selectWorkspaces(db: Kysely<Database>) {
  return db
    .selectFrom('workspaces as w')
    .leftJoin('tracking_scripts as ts', (join) =>
      join.onRef('ts.workspace_id', '=', 'w.id').on('ts.revoked_at', 'is', null),
    )
    .select([
      'w.id',
      'w.name',
      'w.url',
      'w.usage_limit',
      'w.form_tracking',
      'w.click_tracking',
      'w.download_tracking',
      'w.honor_gpc',
      'w.hostnames',
      sql<string[]>`w.excluded_ip_ranges::text[]`.as('excluded_ip_ranges'),
      'ts.id as tracking_script_id',
      sql<string[]>`coalesce((
        SELECT array_agg(t.name ORDER BY lower(t.name)) FROM workspace_tags t
        WHERE t.workspace_id = w.id), '{}')`.as('available_tags'),
    ]);
}

// The workspaces a user is a member of; deleted ones are gone at once.
export const memberOf =
  (userId: string) => (eb: ExpressionBuilder<Database & { w: WorkspaceTable }, 'w'>) =>
    eb.and([
      eb('w.deleted_at', 'is', null),
      eb.exists(
        eb
          .selectFrom('workspace_members as m')
          .select('m.user_id')
          .whereRef('m.workspace_id', '=', 'w.id')
          .where('m.user_id', '=', userId),
      ),
    ]);

/** The user's workspace, or undefined when it is missing or the user is not a member. */
export async function findWorkspace(
  db: Kysely<Database>,
  userId: string,
  workspaceId: string,
): Promise<WorkspaceRow | undefined> {
  return selectWorkspaces(db)
    .where('w.id', '=', workspaceId)
    .where(memberOf(userId))
    .executeTakeFirst();
}

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
