import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Api, AppDeps } from '../http/api.js';
import { escapeHtml } from '../http/html.js';
import { isUuid } from '../http/validation.js';
import { findEmailRule, removeAddress } from './store.js';
import { tokenAddress, tokenRule } from './unsubscribe-token.js';

const Params = Type.Object({ token: Type.String({ maxLength: 2048 }) });

const STYLE =
  'body{font-family:Arial,Helvetica,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;' +
  'color:#1f2933;line-height:1.5}button{font:inherit;background:#2563eb;color:#fff;border:0;' +
  'border-radius:4px;padding:.6rem 1rem;cursor:pointer}button:focus-visible{outline:3px solid #1f2933;' +
  'outline-offset:2px}';
// The page runs nothing, loads nothing and posts only to itself; its one style block is
// allowed by its hash.
const POLICY =
  "default-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'; " +
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * Unsubscribe links in alert e-mails, without a login. `GET` (the link opened, or fetched
 * by a mail scanner or a link preview) only asks: a page with a button. `POST` (that
 * button, or a mail client's RFC 8058 one-click `List-Unsubscribe=One-Click`) removes the
 * address from the rule, switched off when none is left, and says so.
 */
export async function unsubscribeRoutes(app: Api, deps: AppDeps): Promise<void> {
  // The form and RFC 8058 clients POST `List-Unsubscribe=One-Click` (urlencoded, or
  // multipart as RFC 8058 prefers); the body says nothing more, so it is not read.
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
    app.addContentTypeParser(
      type,
      { parseAs: 'string', bodyLimit: 4096 },
      (_request, _body, done) => done(null, undefined),
    );
  }
  /** The rule and address a token was made for, while the address is on the rule. */
  const subscription = async (token: string) => {
    const ruleId = tokenRule(token);
    const rule = ruleId && isUuid(ruleId) ? await findEmailRule(deps.db, ruleId) : undefined;
    const address = rule
      ? tokenAddress(deps.keys.encryption, token, [...rule.email_to, ...rule.owners])
      : null;
    return rule && address ? { rule, address } : null;
  };
  const schema = { tags: ['Notifications'], params: Params, hide: true };

  app.get('/notifications/unsubscribe/:token', { schema }, async (request, reply) => {
    const found = await subscription(request.params.token);
    asPage(reply);
    if (!found) return notValid(reply);
    return page(
      'Unsubscribe from this alert?',
      `${found.address} will no longer receive the alert “${found.rule.name}”. Other alerts and other addresses are not affected.`,
      'Unsubscribe',
    );
  });

  app.post('/notifications/unsubscribe/:token', { schema }, async (request, reply) => {
    const found = await subscription(request.params.token);
    const removed =
      found &&
      (await removeAddress(deps.db, found.rule.workspace_id, found.rule.id, found.address));
    asPage(reply);
    if (!found || !removed) return notValid(reply);
    return page(
      'Unsubscribed',
      `${found.address} will no longer receive the alert “${removed.name}”.`,
    );
  });
}

interface ReplyLike {
  header(name: string, value: string): unknown;
  type(value: string): unknown;
  status(code: number): unknown;
}

function asPage(reply: ReplyLike): void {
  reply.header('cache-control', 'no-store');
  reply.header('content-security-policy', POLICY);
  reply.type('text/html; charset=utf-8');
}

function notValid(reply: ReplyLike): string {
  reply.status(404);
  return page(
    'Link not valid',
    'This unsubscribe link is not valid, or the address was already removed.',
  );
}

/** A small page; with `button`, a form that POSTs to this same address. */
function page(title: string, text: string, button?: string): string {
  const form = button
    ? `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">${escapeHtml(button)}</button></form>`
    : '';
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${form}</main></body></html>`;
}
