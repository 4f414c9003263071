import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { cookieSession } from '../auth/authenticate.js';
import { checkEmail, checkNewPassword, signIn } from '../auth/routes.js';
import { createUser, findUser, findUserByEmail, UserExistsError } from '../auth/users.js';
import type { Role } from '../db/schema.js';
import { spend } from '../http/allowances.js';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { isEmailAddress } from '../http/email-address.js';
import { fieldError, HttpError, notFound, unauthorized } from '../http/errors.js';
import { baseUrl } from '../http/links.js';
import { mailBudget } from '../http/mail-budget.js';
import { errorResponses, WorkspaceParams } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import type { Mailer } from '../mail/transport.js';
import { inviteMail } from './invite-mail.js';
import { createInvite, findInvite, INVITE_DAYS, listOpenInvites, useInvite } from './invites.js';
import {
  AcceptBody,
  InviteAnswer,
  InviteBody,
  InviteDetailsSchema,
  Me,
  MemberList,
  MemberParams,
  MemberSchema,
  RoleBody,
} from './schemas.js';
import { addMember, changeMember, findMember, listMembers } from './store.js';

const tags = ['Team'];
const presentMember = (m: { id: string; name: string; email: string; role: Role }) => ({
  uuid: m.id,
  name: m.name,
  email: m.email,
  role: m.role,
});

/** `GET /v1/me`, a workspace's members and invites (contract §12). */
export function accountRoutes(app: Api, deps: AppDeps, mailer: Mailer | null): void {
  app.get(
    '/v1/me',
    {
      schema: {
        tags,
        summary: 'Who you are: the user your token or session speaks for',
        response: {
          200: Type.Object({ success: Type.Boolean(), data: Me }),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request) => {
      const user = await findUser(deps.db, userOf(request));
      if (!user) throw unauthorized('This account no longer exists.', false);
      return {
        success: true,
        data: {
          uuid: user.id,
          name: user.name,
          email: user.email,
          created_at: user.created_at.toISOString(),
        },
      };
    },
  );

  app.get(
    '/v1/workspaces/:workspaceUuid/users',
    {
      schema: {
        tags,
        summary: "The workspace's members and open invites",
        params: WorkspaceParams,
        response: { 200: MemberList, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const [members, invites] = await Promise.all([
        listMembers(deps.db, workspace.id),
        listOpenInvites(deps.db, workspace.id),
      ]);
      return {
        success: true,
        data: members.map(presentMember),
        invites: invites.map((i) => ({ ...i, expires_at: i.expires_at.toISOString() })),
      };
    },
  );

  app.post(
    '/v1/workspaces/:workspaceUuid/users/invite',
    {
      schema: {
        tags,
        summary: 'Invite someone by e-mail (a single-use link, valid 7 days)',
        description:
          'With SMTP_URL set, each invite is one e-mail of the mail budget: MAIL_PER_USER_PER_MINUTE per user (default 60) and MAIL_PER_WORKSPACE_PER_MINUTE per workspace (default 120); beyond it 429 with Retry-After, and no invite is made.',
        params: WorkspaceParams,
        body: InviteBody,
        response: { 200: InviteAnswer, ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const email = request.body.email.trim();
      checkEmail(email);
      const existing = await findUserByEmail(deps.db, email);
      if (existing && (await findMember(deps.db, workspace.id, existing.id))) {
        throw fieldError('email', `${email} is already a member of this workspace.`);
      }
      // The budget before the invite: a refused one leaves no link behind.
      if (mailer) {
        await spend(
          deps.db,
          mailBudget(deps.config, {
            userId: userOf(request),
            workspaceId: workspace.id,
            emails: 1,
          }),
        );
      }
      const inviter = await findUser(deps.db, userOf(request));
      const secret = await createInvite(deps.db, {
        workspaceId: workspace.id,
        email,
        role: request.body.role ?? 'member',
        invitedBy: userOf(request),
      });
      const link = `${baseUrl(request, deps.config.publicUrl)}/invite/${secret}`;
      let message = `Share this invite link with ${email}.`;
      if (mailer) {
        try {
          await mailer.send(
            inviteMail({
              to: email,
              workspaceName: workspace.name,
              inviterName: inviter?.name || inviter?.email || '',
              link,
              days: INVITE_DAYS,
            }),
          );
          message = `An invite link has been sent to ${email}.`;
        } catch (error) {
          request.log.warn({ code: (error as { code?: string }).code }, 'invite e-mail failed');
          message = `The invite e-mail could not be sent; share this invite link with ${email}.`;
        }
      }
      return { success: true, message, data: { invite_link: link } };
    },
  );

  app.patch(
    '/v1/workspaces/:workspaceUuid/users/:userUuid',
    {
      schema: {
        tags,
        summary: "Change a member's role (admins cannot touch owners)",
        params: MemberParams,
        body: RoleBody,
        response: {
          200: Type.Object({ success: Type.Boolean(), data: MemberSchema }),
          ...errorResponses(400, 401, 403, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const { workspaceUuid, userUuid } = request.params;
      const target = await requireMember(deps, request, workspaceUuid, userUuid);
      const role = request.body.role;
      if (request.role !== 'owner' && (target.role === 'owner' || role === 'owner')) {
        throw new HttpError(403, 'Only an owner can change an owner or make someone owner.');
      }
      await changeMember(deps.db, workspaceUuid, userUuid, role);
      return { success: true, data: presentMember({ ...target, role }) };
    },
  );

  app.delete(
    '/v1/workspaces/:workspaceUuid/users/:userUuid',
    {
      schema: {
        tags,
        summary: 'Remove a member, or leave the workspace yourself',
        params: MemberParams,
        response: { 204: { type: 'null' }, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const { workspaceUuid, userUuid } = request.params;
      const target = await requireMember(deps, request, workspaceUuid, userUuid);
      const self = userUuid === userOf(request);
      if (!self && request.role !== 'owner' && target.role === 'owner') {
        throw new HttpError(403, 'Only an owner can remove an owner.');
      }
      await changeMember(deps.db, workspaceUuid, userUuid, null);
      reply.status(204);
    },
  );
}

/** The invite link's page calls these: what it is for, and accepting it (contract §12). */
export function inviteRoutes(app: Api, deps: AppDeps): void {
  app.get(
    '/auth/invites/:secret',
    {
      schema: {
        tags,
        security: [],
        summary: 'What an invite link is for (404 once used or expired)',
        params: Type.Object({ secret: Type.String({ maxLength: 128 }) }),
        response: { 200: InviteDetailsSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const invite = await findInvite(deps.db, request.params.secret);
      if (!invite) throw notFound('This invite link has been used or has expired.');
      return { workspace: invite.workspace, email: invite.email, role: invite.role };
    },
  );

  app.post(
    '/auth/invites/:secret/accept',
    {
      schema: {
        tags,
        security: [],
        summary:
          'Join through an invite: signed in as the invited address (its session cookie), or with {name, password} to create the account when the address has none',
        params: Type.Object({ secret: Type.String({ maxLength: 128 }) }),
        body: AcceptBody,
        response: { 204: { type: 'null' }, ...errorResponses(400, 401, 403, 404, 415, 422) },
      },
      // Signed in as the invitee, the page posts no body at all.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const { secret } = request.params;
      const invite = await findInvite(deps.db, secret);
      if (!invite) throw notFound('This invite link has been used or has expired.');
      // Made before addresses had to be plain ones: no account may be made for it.
      if (!isEmailAddress(invite.email)) {
        throw notFound('This invite link no longer works; ask for a new invite.');
      }
      const session = await cookieSession(request, reply, deps);
      const body = request.body;
      let userId: string;
      let signInNow = false;
      if (session) {
        const user = await findUser(deps.db, session.userId);
        if (user?.email.toLowerCase() !== invite.email.toLowerCase()) {
          throw new HttpError(
            403,
            `This invite is for ${invite.email}; sign out and open the link again to accept it.`,
          );
        }
        userId = session.userId;
      } else {
        // An existing account joins only signed in: a password checked here would be a
        // way around the sign-in limits for anyone who can invite an address (contract §12).
        const accountExists = () =>
          unauthorized(
            `An account for ${invite.email} exists: sign in as ${invite.email}, then open this link again to accept.`,
            false,
          );
        if (await findUserByEmail(deps.db, invite.email)) throw accountExists();
        if (body.password === undefined) {
          throw fieldError('password', 'Choose a password to create your account.');
        }
        checkNewPassword(body.password);
        try {
          userId = (await createUser(deps.db, invite.email, body.name ?? '', body.password)).id;
        } catch (error) {
          // Two tabs accepting at once: the other one made the account.
          if (error instanceof UserExistsError) throw accountExists();
          throw error;
        }
        signInNow = true;
      }
      const joined = await deps.db.transaction().execute(async (trx) => {
        const open = await findInvite(trx, secret, true);
        if (!open) return false;
        await addMember(trx, open.workspaceId, userId, open.role);
        await useInvite(trx, secret);
        return true;
      });
      if (!joined) throw notFound('This invite link has been used or has expired.');
      if (signInNow) await signIn(deps, request, reply, userId);
      reply.status(204);
    },
  );
}

async function requireMember(
  deps: AppDeps,
  request: FastifyRequest,
  workspaceId: string,
  userId: string,
) {
  await requireWorkspace(deps, request, workspaceId);
  const member = await findMember(deps.db, workspaceId, userId);
  if (!member) throw notFound('No such member in this workspace.');
  return member;
}
