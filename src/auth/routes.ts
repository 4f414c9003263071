import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Api, AppDeps } from '../http/api.js';
import { clientNetwork } from '../http/client-address.js';
import { EMAIL_PROBLEM, isEmailAddress } from '../http/email-address.js';
import { fieldError, HttpError, notFound, unauthorized } from '../http/errors.js';
import { baseUrl } from '../http/links.js';
import { errorResponses, Message } from '../http/schemas.js';
import type { Mailer } from '../mail/transport.js';
import { cookieSession } from './authenticate.js';
import { endBrowserSession, startBrowserSession } from './browser-sessions.js';
import { clearSessionCookies, setSessionCookies } from './cookies.js';
import { knownDevice, rememberDevice } from './devices.js';
import { createLink, dropSetupLinks, findLink, RESET_HOURS, useLink } from './links.js';
import { checkPassword, passwordProblem } from './passwords.js';
import { resetMail } from './reset-mail.js';
import {
  ForgotBody,
  PasswordChangeBody,
  ResetBody,
  ResetLink,
  SecretParams,
  ServerInfo,
  SetupBody,
  SignInBody,
} from './schemas.js';
import { SignInLimits } from './sign-in-limits.js';
import { countUsers, createUser, findUser, findUserByEmail, setPassword } from './users.js';

const tags = ['Sign-in'];
// The /auth routes are for browsers: no bearer token is involved.
const security: [] = [];
const SIGNED_IN = { 204: { type: 'null', description: 'Signed in: session cookies set.' } };

/**
 * Starts a browser session for the user and sets its cookies (contract §12); the browser
 * is known for the user from then on (its device cookie).
 */
export async function signIn(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
): Promise<void> {
  const session = await startBrowserSession(deps.db, userId);
  setSessionCookies(reply, deps.config, session);
  await rememberDevice(deps, request, reply, userId);
}

/** 422 `password` when a new password breaks the rules. */
export function checkNewPassword(password: string, field = 'password'): void {
  const problem = passwordProblem(password);
  if (problem) throw fieldError(field, problem);
}

/** 429 with Retry-After, in words a person can act on. */
function tooManyAttempts(wait: number): HttpError {
  const minutes = Math.ceil(wait / 60);
  return new HttpError(
    429,
    `Too many failed attempts; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    undefined,
    { 'retry-after': String(wait) },
  );
}

/** 422 `email` unless it is an e-mail address. */
export function checkEmail(email: string): void {
  if (!isEmailAddress(email.trim())) throw fieldError('email', EMAIL_PROBLEM);
}

/**
 * Browser sign-in, sign-out, the first-start setup link and password resets (by a link from
 * the CLI, or mailed through `mailer` when the server sends e-mail).
 */
export function authRoutes(app: Api, deps: AppDeps, mailer: Mailer | null): void {
  const mail = mailer !== null;
  const limits = new SignInLimits(deps.db, deps.keys.tokenSigning);

  app.get(
    '/auth/server',
    {
      schema: {
        tags,
        security,
        summary: 'What this server offers the dashboard: e-mail, and whether PUBLIC_URL is set',
        response: { 200: ServerInfo },
      },
    },
    async () => ({ success: true, data: { mail, public_url: deps.config.publicUrl ?? null } }),
  );

  app.post(
    '/auth/sign-in',
    {
      schema: {
        tags,
        security,
        summary: 'Sign in with e-mail and password; sets the session cookies',
        body: SignInBody,
        response: { ...SIGNED_IN, ...errorResponses(400, 401, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      const user = await findUserByEmail(deps.db, email);
      const device = await knownDevice(deps.db, request, user?.id);
      const attempt = await limits.attempt(email, clientNetwork(request), device);
      if (attempt.wait > 0) throw tooManyAttempts(attempt.wait);
      await sleep(attempt.delayMs);
      // Unknown address and wrong password: the same answer, in the same time.
      if (!(await checkPassword(user?.password_hash ?? null, password)) || !user) {
        // The attempt is already counted as a failure.
        throw unauthorized('The e-mail address or the password is wrong.', false);
      }
      await attempt.succeeded();
      await signIn(deps, request, reply, user.id);
      reply.status(204);
    },
  );

  app.post(
    '/auth/sign-out',
    {
      schema: {
        tags,
        security,
        summary: 'Sign out: ends the browser session and clears its cookies',
        response: { 204: { type: 'null' }, ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const session = await cookieSession(request, reply, deps);
      if (session) await endBrowserSession(deps.db, session.idHash);
      clearSessionCookies(reply, deps.config);
      reply.status(204);
    },
  );

  app.post(
    '/auth/password',
    {
      schema: {
        tags,
        security,
        summary:
          'Change your password (signed in); your other sessions and all your personal access tokens end',
        body: PasswordChangeBody,
        response: { 204: { type: 'null' }, ...errorResponses(400, 401, 403, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const session = await requireSession(request, reply, deps);
      const user = await findUser(deps.db, session.userId);
      const stored = user ? await findUserByEmail(deps.db, user.email) : undefined;
      checkNewPassword(request.body.password);
      // Guessing the current password from a stolen session counts like failed sign-ins.
      const attempt = await limits.attempt(stored?.email ?? '', clientNetwork(request));
      if (attempt.wait > 0) throw tooManyAttempts(attempt.wait);
      await sleep(attempt.delayMs);
      if (!(await checkPassword(stored?.password_hash ?? null, request.body.current_password))) {
        throw fieldError('current_password', 'The current password is wrong.');
      }
      await attempt.succeeded();
      await setPassword(deps.db, session.userId, request.body.password, session.idHash);
      reply.status(204);
    },
  );

  app.get(
    '/auth/setup/:secret',
    {
      schema: {
        tags,
        security,
        summary: 'Whether a first-start setup link still works',
        params: SecretParams,
        response: { 200: Message, ...errorResponses(404) },
      },
    },
    async (request) => {
      await requireSetupLink(deps, request.params.secret);
      return { success: true, message: 'Create the first account.' };
    },
  );

  app.post(
    '/auth/setup/:secret',
    {
      schema: {
        tags,
        security,
        summary: 'Create the first user through the setup link from the log; signs in',
        params: SecretParams,
        body: SetupBody,
        response: { ...SIGNED_IN, ...errorResponses(400, 404, 415, 422) },
      },
    },
    async (request, reply) => {
      const { secret } = request.params;
      await requireSetupLink(deps, secret);
      checkEmail(request.body.email);
      checkNewPassword(request.body.password);
      // One first user even when two tabs submit at once.
      const user = await deps.db.transaction().execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtext('footfall:setup'))`.execute(trx);
        if ((await countUsers(trx)) > 0 || !(await useLink(trx, secret))) {
          throw notFound('This setup link has been used or has expired.');
        }
        const created = await createUser(
          trx,
          request.body.email,
          request.body.name ?? '',
          request.body.password,
        );
        await dropSetupLinks(trx);
        return created;
      });
      await signIn(deps, request, reply, user.id);
      reply.status(204);
    },
  );

  app.get(
    '/auth/reset/:secret',
    {
      schema: {
        tags,
        security,
        summary: 'The account a password-reset link is for',
        params: SecretParams,
        response: { 200: ResetLink, ...errorResponses(404) },
      },
    },
    async (request) => {
      const user = await requireResetLink(deps, request.params.secret);
      return { success: true, data: { email: user.email } };
    },
  );

  app.post(
    '/auth/reset/:secret',
    {
      schema: {
        tags,
        security,
        summary:
          'Choose a new password through a reset link; signs in, other sessions and all personal access tokens end',
        params: SecretParams,
        body: ResetBody,
        response: { ...SIGNED_IN, ...errorResponses(400, 404, 415, 422) },
      },
    },
    async (request, reply) => {
      const user = await requireResetLink(deps, request.params.secret);
      checkNewPassword(request.body.password);
      if (!(await useLink(deps.db, request.params.secret))) {
        throw notFound('This link has been used or has expired.');
      }
      await setPassword(deps.db, user.id, request.body.password);
      await signIn(deps, request, reply, user.id);
      reply.status(204);
    },
  );

  app.post(
    '/auth/forgot',
    {
      schema: {
        tags,
        security,
        summary:
          'Forgot password: mails a one-time reset link when the address has an account (the same answer either way)',
        body: ForgotBody,
        response: { 202: Message, ...errorResponses(400, 404, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const email = request.body.email.trim();
      checkEmail(email);
      if (!mailer) {
        throw notFound(
          `This server does not send e-mail: ask an administrator for a reset link (npx --no footfall users reset-link --email ${email}).`,
        );
      }
      const wait = await limits.forgot(email, clientNetwork(request));
      if (wait > 0) {
        const minutes = Math.ceil(wait / 60);
        throw new HttpError(
          429,
          `Enough reset e-mails have been asked for; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
          undefined,
          { 'retry-after': String(wait) },
        );
      }
      const user = await findUserByEmail(deps.db, email);
      if (user) {
        const secret = await createLink(deps.db, 'reset', user.id);
        const link = `${baseUrl(request, deps.config.publicUrl)}/reset/${secret}`;
        // Not awaited: an answer that waited for the mail server would tell, by its time,
        // which addresses have an account.
        mailer.send(resetMail({ to: user.email, link, hours: RESET_HOURS })).catch((error) => {
          request.log.warn({ code: (error as { code?: string }).code }, 'reset e-mail failed');
        });
      }
      reply.status(202);
      return {
        success: true,
        message: `If an account uses that address, a link to choose a new password is on its way to it. It works once, for ${RESET_HOURS} hours.`,
      };
    },
  );
}

/** The request's browser session, or 401. */
export async function requireSession(request: FastifyRequest, reply: FastifyReply, deps: AppDeps) {
  const session = await cookieSession(request, reply, deps);
  if (!session) throw unauthorized('Sign in first.', false);
  return session;
}

async function requireSetupLink(deps: AppDeps, secret: string): Promise<void> {
  const link = await findLink(deps.db, 'setup', secret);
  if (!link || (await countUsers(deps.db)) > 0) {
    throw notFound('This setup link has been used or has expired.');
  }
}

async function requireResetLink(deps: AppDeps, secret: string) {
  const link = await findLink(deps.db, 'reset', secret);
  const user = link?.userId ? await findUser(deps.db, link.userId) : undefined;
  if (!user) throw notFound('This link has been used or has expired.');
  return user;
}
