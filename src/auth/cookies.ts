import type { FastifyReply } from 'fastify';
import type { Config } from '../config.js';

/** Contract §12's cookie names. */
export const SESSION_COOKIE = 'footfall_session';
export const CSRF_COOKIE = 'footfall_csrf';
export const CSRF_HEADER = 'x-footfall-csrf';

const secure = (config: Config) => config.publicUrl?.startsWith('https:') ?? false;

/** The HttpOnly session cookie and the script-readable CSRF cookie, with the same lifetime. */
export function setSessionCookies(
  reply: FastifyReply,
  config: Config,
  session: { secret: string; csrf: string; expiresAt: Date },
): void {
  const common = {
    path: '/',
    sameSite: 'lax' as const,
    secure: secure(config),
    expires: session.expiresAt,
  };
  reply.setCookie(SESSION_COOKIE, session.secret, { ...common, httpOnly: true });
  reply.setCookie(CSRF_COOKIE, session.csrf, { ...common, httpOnly: false });
}

export function clearSessionCookies(reply: FastifyReply, config: Config): void {
  const common = { path: '/', sameSite: 'lax' as const, secure: secure(config) };
  reply.clearCookie(SESSION_COOKIE, { ...common, httpOnly: true });
  reply.clearCookie(CSRF_COOKIE, common);
}

/**
 * The device cookie: a browser that signed in before. Only sign-in reads it (Path=/auth),
 * and no other site ever sends it (Strict).
 */
export const DEVICE_COOKIE = 'footfall_device';

export function setDeviceCookie(
  reply: FastifyReply,
  config: Config,
  secret: string,
  expiresAt: Date,
): void {
  reply.setCookie(DEVICE_COOKIE, secret, {
    path: '/auth',
    sameSite: 'strict',
    secure: secure(config),
    httpOnly: true,
    expires: expiresAt,
  });
}
