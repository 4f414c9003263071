import { Type } from '@sinclair/typebox';
import { spend } from '../http/allowances.js';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { baseUrl } from '../http/links.js';
import { errorResponses, Wrapped } from '../http/schemas.js';
import { findWorkspace } from '../http/workspace.js';
import { presentWorkspace } from '../workspaces/present.js';
import { Workspace } from '../workspaces/schemas.js';
import { createDemoWorkspace } from './create.js';

// Listed with the workspaces in the API reference: it makes one.
const tags = ['Workspaces'];
// Each demo is 30 days of visits written at once: a few a day are plenty to look around,
// and counting those made (not those kept) stops delete-and-remake loops.
const DEMO_PER_DAY = 5;

/** POST /v1/workspaces/demo: a workspace of the caller's own, filled with demo data. */
export function demoRoutes(app: Api, deps: AppDeps): void {
  const WorkspaceRef = Type.Ref(Workspace);

  app.post(
    '/v1/workspaces/demo',
    {
      schema: {
        tags,
        summary:
          'Create a workspace of your own filled with demo data (synthetic companies and visits)',
        description: `At most ${DEMO_PER_DAY} made per user in any 24 hours, deleted ones included; beyond it 429 with Retry-After, and the message says when another can be made.`,
        response: { 201: Wrapped(WorkspaceRef), ...errorResponses(401, 429) },
      },
    },
    async (request, reply) => {
      const userId = userOf(request);
      await spend(deps.db, [
        {
          scope: 'demo:user',
          subjectId: userId,
          amount: 1,
          limit: DEMO_PER_DAY,
          windowSeconds: 86_400,
          rule: `You can make at most ${DEMO_PER_DAY} demo workspaces a day, deleted ones included`,
          unit: 'demo workspaces',
        },
      ]);
      const demo = await createDemoWorkspace(deps.db, userId, {
        days: 30,
        idleMs: deps.config.sessionIdleSeconds * 1000,
        usageLimit: deps.config.defaultUsageLimit,
      });
      const row = await findWorkspace(deps.db, userId, demo.workspaceId);
      if (!row) throw notFound('Workspace not found.');
      reply.status(201);
      return {
        success: true,
        data: presentWorkspace(row, baseUrl(request, deps.config.publicUrl)),
      };
    },
  );
}
