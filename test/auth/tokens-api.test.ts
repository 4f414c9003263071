import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { person } from '../accounts/helpers.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('personal access tokens through the API (the dashboard’s Settings → API tokens)', () => {
  it('makes a token shown once, lists it without the secret, and revokes it', async () => {
    const sam = await person(t, 'sam@example.com');
    const made = await sam.browser('POST', '/v1/me/tokens', {
      name: '  CRM sync ',
      expires_in_days: 30,
    });
    expect(made.status).toBe(201);
    const { uuid, token, name, expires_at, created_at } = made.body.data;
    expect(name).toBe('CRM sync');
    const lifetime = Date.parse(expires_at) - Date.parse(created_at);
    expect(Math.abs(lifetime - 30 * 86_400_000)).toBeLessThan(5_000);
    // The token works as a bearer token.
    const me = await client(t.url, token)('GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.data.email).toBe('sam@example.com');
    // The list has it (the token from person() too), newest first, never the secret.
    const list = await sam.browser('GET', '/v1/me/tokens');
    expect(list.body.data[0]).toEqual({
      uuid,
      name: 'CRM sync',
      created_at,
      expires_at,
      revoked_at: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(token);
    // Someone else cannot revoke it: as if it did not exist.
    const other = await person(t, 'other@example.com');
    expect((await other.api('DELETE', `/v1/me/tokens/${uuid}`)).status).toBe(404);
    expect((await client(t.url, token)('GET', '/v1/me')).status).toBe(200);
    expect((await sam.browser('DELETE', `/v1/me/tokens/${uuid}`)).status).toBe(204);
    expect((await client(t.url, token)('GET', '/v1/me')).status).toBe(401);
    expect((await sam.browser('DELETE', `/v1/me/tokens/${uuid}`)).status).toBe(404);
    expect(
      (await sam.browser('GET', '/v1/me/tokens')).body.data.map((x: { uuid: string }) => x.uuid),
    ).not.toContain(uuid);
  });

  it('makes a token that never expires, and refuses bad input with 422', async () => {
    const kim = await person(t, 'kim@example.com');
    const forever = await kim.api('POST', '/v1/me/tokens', { name: 'Backups' });
    expect(forever.status).toBe(201);
    expect(forever.body.data.expires_at).toBeNull();
    expectFieldError(await kim.api('POST', '/v1/me/tokens', { name: '   ' }), 'name');
    expectFieldError(
      await kim.api('POST', '/v1/me/tokens', { name: 'x', expires_in_days: 0 }),
      'expires_in_days',
    );
    expectFieldError(
      await kim.api('POST', '/v1/me/tokens', { name: 'x', expires_in_days: 5000 }),
      'expires_in_days',
    );
    expect(
      (await kim.browser('POST', '/v1/me/tokens', { name: 'x' }, { csrf: false })).status,
    ).toBe(403);
    expect((await client(t.url)('GET', '/v1/me/tokens')).status).toBe(401);
  });
});
