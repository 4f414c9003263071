import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/auth/users.js';
import { cookieClient, PASSWORD, signIn } from '../accounts/helpers.js';
import { type Answer, client, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let operator: { id: string; token: string };

beforeAll(async () => {
  t = await startTestApp();
  operator = await t.operator('owner@example.com');
});
afterAll(() => t.close());

function expect401(answer: Answer, challenge: RegExp) {
  expect(answer.status).toBe(401);
  expect(answer.headers.get('www-authenticate')).toMatch(challenge);
  expect(answer.body).toEqual({ success: false, message: expect.any(String) });
}

describe('bearer tokens', () => {
  it('lets a valid token in', async () => {
    expect((await client(t.url, operator.token)('GET', '/v1/workspaces')).status).toBe(200);
  });

  it('answers 401 with WWW-Authenticate for a missing token', async () => {
    expect401(await client(t.url)('GET', '/v1/workspaces'), /^Bearer realm="footfall"$/);
    expect401(
      await client(t.url)('GET', '/v1/workspaces', undefined, {
        authorization: 'Basic Zm9vOmJhcg==',
      }),
      /^Bearer/,
    );
  });

  it('answers 401 for a garbage token', async () => {
    for (const garbage of ['garbage', 'a.b.c', `${operator.token}x`]) {
      expect401(await client(t.url, garbage)('GET', '/v1/workspaces'), /error="invalid_token"/);
    }
  });

  it('answers 401 for a token signed with another key', async () => {
    const foreign = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('footfall')
      .setSubject(operator.id)
      .setJti(randomUUID())
      .sign(new TextEncoder().encode('another-secret-another-secret-another'));
    expect401(await client(t.url, foreign)('GET', '/v1/workspaces'), /invalid_token/);
  });

  it('answers 401 for an expired token', async () => {
    // Expiry is kept in whole seconds: a token made to last 1 s may last a moment only.
    const issued = await t.deps.tokens.issue(operator.id, 'short', new Date(Date.now() + 3000));
    expect((await client(t.url, issued.token)('GET', '/v1/workspaces')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3100));
    expect401(await client(t.url, issued.token)('GET', '/v1/workspaces'), /invalid_token/);
  });

  it('answers 401 for a revoked token, at once', async () => {
    const issued = await t.deps.tokens.issue(operator.id, 'to revoke', null);
    const call = client(t.url, issued.token);
    expect((await call('GET', '/v1/workspaces')).status).toBe(200);
    expect(await t.deps.tokens.revoke(issued.id)).toBe(true);
    expect401(
      await call('PATCH', '/radar/operator/v1/webhooks', { delivery: {} }),
      /invalid_token/,
    );
    expect401(await call('GET', '/v1/workspaces'), /invalid_token/);
  });

  it('guards every API route in the OpenAPI document, not only some', async () => {
    const anonymous = client(t.url);
    const { body } = await anonymous('GET', '/openapi.json');
    const routes = Object.entries(body.paths as Record<string, Record<string, unknown>>)
      // Every path but the browser-facing ones (Spotter) is the token-guarded API.
      .filter(([template]) => /^\/(v1|radar)\//.test(template))
      .flatMap(([template, item]) =>
        Object.keys(item).map((method) => {
          // Any well-formed values will do: the token is checked before anything else.
          const path = template.replace(/\{key\}/g, 'industry').replace(/\{[^}]+\}/g, randomUUID());
          return [method.toUpperCase(), path] as const;
        }),
      );
    expect(routes.length).toBeGreaterThan(20);
    for (const [method, path] of routes) {
      const query = path.endsWith('/sessions') ? '?date=2026-01-01' : '';
      const answer = await anonymous(method, path + query, method === 'GET' ? undefined : {});
      expect(answer.status, `${method} ${path}`).toBe(401);
    }
  });

  it('leaves Spotter, which the customer’s pages call, open without a token', async () => {
    const answer = await client(t.url)('GET', '/spotter/v1/nosuchscript0000');
    expect(answer.status).toBe(404);
  });
});

describe('HTTP basics', () => {
  it('puts an X-Request-Id on every answer, keeping a sane one the caller sent', async () => {
    const health = await client(t.url)('GET', '/healthz');
    expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const denied = await client(t.url)('GET', '/v1/workspaces');
    expect(denied.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const given = await client(t.url)('GET', '/healthz', undefined, { 'x-request-id': 'trace-42' });
    expect(given.headers.get('x-request-id')).toBe('trace-42');
    const hostile = await client(t.url)('GET', '/healthz', undefined, {
      'x-request-id': 'a b <script>',
    });
    expect(hostile.headers.get('x-request-id')).not.toContain('<');
  });

  it('answers 404 with the error body for an unknown route', async () => {
    const answer = await client(t.url, operator.token)('GET', '/v1/nothing-here');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ success: false, message: expect.any(String) });
  });

  it('reports health and database readiness', async () => {
    expect((await client(t.url)('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await client(t.url)('GET', '/readyz');
    expect(ready.status).toBe(200);
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After once a user spends their budget; another user has their own', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const first = await limited.operator();
      const second = await limited.operator();
      const call = client(limited.url, first.token);
      for (let i = 0; i < 3; i++) expect((await call('GET', '/v1/workspaces')).status).toBe(200);
      const refused = await call('GET', '/v1/workspaces');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(refused.body).toEqual({ success: false, message: expect.any(String) });
      expect((await client(limited.url, second.token)('GET', '/v1/workspaces')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('counts every token and browser session of one user against one budget: minting tokens does not multiply it', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: '6' });
    try {
      const user = await createUser(limited.database.db, 'busy@example.com', 'Busy', PASSWORD);
      const tokens = await Promise.all(
        ['one', 'two', 'three'].map((name) => limited.deps.tokens.issue(user.id, name, null)),
      );
      const calls = tokens.map(({ token }) => client(limited.url, token));
      const signedIn = await signIn(limited.url, user.email);
      expect(signedIn.answer.status).toBe(204);
      const browser = cookieClient(limited.url, signedIn.jar);
      const other = await limited.operator();

      // Six calls in all, over three tokens and the browser: the user's budget is spent.
      for (const call of [...calls, browser, ...calls.slice(0, 2)]) {
        expect((await call('GET', '/v1/me')).status).toBe(200);
      }
      for (const call of calls) expect((await call('GET', '/v1/me')).status).toBe(429);
      expect((await browser('GET', '/v1/me')).status).toBe(429);
      // A token made now shares the spent budget.
      const fresh = await limited.deps.tokens.issue(user.id, 'fresh', null);
      expect((await client(limited.url, fresh.token)('GET', '/v1/me')).status).toBe(429);
      expect((await client(limited.url, other.token)('GET', '/v1/me')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('failures on our side', () => {
  it('answers 500 with a generic message and no internals when the database is gone', async () => {
    const broken = await startTestApp();
    const { token } = await broken.operator();
    await broken.database.pool.end();
    try {
      const answer = await client(broken.url, token)('GET', '/v1/workspaces');
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ success: false, message: 'Something went wrong on our side.' });
      expect(answer.headers.get('x-request-id')).toBeTruthy();
      const ready = await client(broken.url)('GET', '/readyz');
      expect(ready.status).toBe(503);
    } finally {
      await broken.app.close();
      await broken.close().catch(() => {});
    }
  });
});
