import { Type } from '@sinclair/typebox';
import type { Api, AppDeps } from '../http/api.js';
import { isUuid } from '../http/validation.js';
import { findEmailRule, removeAddress } from './store.js';
import { tokenAddress, tokenRule } from './unsubscribe-token.js';

const Params = Type.Object({ token: Type.String({ maxLength: 2048 }) });

/**
 * One-click unsubscribe, without a login: `GET` from the link in every alert e-mail, or
 * `POST` from a mail client's List-Unsubscribe-Post (RFC 8058), removes the address from
 * the rule (switched off when none is left) and answers a small page saying so.
 */
export async function unsubscribeRoutes(app: Api, deps: AppDeps): Promise<void> {
  // RFC 8058 clients POST `List-Unsubscribe=One-Click` as a form; the body says nothing more.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_request, _body, done) => done(null, undefined),
  );
  const handler = async (request: { params: { token: string } }, reply: ReplyLike) => {
    const { token } = request.params;
    const ruleId = tokenRule(token);
    const rule = ruleId && isUuid(ruleId) ? await findEmailRule(deps.db, ruleId) : undefined;
    const address = rule ? tokenAddress(deps.keys.encryption, token, rule.email_to) : null;
    const removed =
      rule && address
        ? await removeAddress(deps.db, rule.workspace_id, rule.id, address)
        : undefined;
    reply.header('cache-control', 'no-store');
    reply.type('text/html; charset=utf-8');
    if (!address || !removed) {
      reply.status(404);
      return page(
        'Link not valid',
        'This unsubscribe link is not valid, or the address was already removed.',
      );
    }
    return page('Unsubscribed', `${address} will no longer receive the alert “${removed.name}”.`);
  };
  const schema = {
    tags: ['Notifications'],
    params: Params,
    hide: true,
  };
  app.get('/notifications/unsubscribe/:token', { schema }, handler);
  app.post('/notifications/unsubscribe/:token', { schema }, handler);
}

interface ReplyLike {
  header(name: string, value: string): unknown;
  type(value: string): unknown;
  status(code: number): unknown;
}

function page(title: string, text: string): string {
  const escaped = (value: string) =>
    value.replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
    );
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escaped(title)}</title></head><body style="font-family:Arial,Helvetica,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1f2933"><h1>${escaped(title)}</h1><p>${escaped(text)}</p></body></html>`;
}
