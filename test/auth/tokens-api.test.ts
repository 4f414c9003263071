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

  it('a token that expires cannot make a token that outlives it (422); one that never expires, or the browser, can', async () => {
    const lee = await person(t, 'lee@example.com');
    const made = await lee.browser('POST', '/v1/me/tokens', { name: 'week', expires_in_days: 7 });
    const week = client(t.url, made.body.data.token);
    const weekEnds = Date.parse(made.body.data.expires_at);

    for (const body of [{ name: 'forever' }, { name: 'null', expires_in_days: null }]) {
      const answer = await week('POST', '/v1/me/tokens', body);
      expectFieldError(answer, 'expires_in_days', true);
      expect(answer.body.message).toMatch(/cannot make a token that outlives it/);
    }
    for (const days of [8, 7]) {
      const answer = await week('POST', '/v1/me/tokens', { name: 'longer', expires_in_days: days });
      expectFieldError(answer, 'expires_in_days', true);
      expect(answer.body.errors.expires_in_days[0]).toBe(
        'At most 6 days for a token made with this one.',
      );
    }
    const shorter = await week('POST', '/v1/me/tokens', { name: 'shorter', expires_in_days: 6 });
    expect(shorter.status).toBe(201);
    expect(Date.parse(shorter.body.data.expires_at)).toBeLessThanOrEqual(weekEnds);
    // Nothing was made by the refused calls.
    const names = (await lee.api('GET', '/v1/me/tokens')).body.data.map(
      (token: { name: string }) => token.name,
    );
    expect(names.sort()).toEqual(['shorter', 'test', 'week']);

    // A token that expires within the day can make none at all.
    const hour = await t.deps.tokens.issue(lee.id, 'hour', new Date(Date.now() + 3_600_000));
    const fromHour = await client(t.url, hour.token)('POST', '/v1/me/tokens', {
      name: 'x',
      expires_in_days: 1,
    });
    expectFieldError(fromHour, 'expires_in_days', true);

    // person()'s token never expires, and the browser session is renewed as it is used.
    expect((await lee.api('POST', '/v1/me/tokens', { name: 'api' })).status).toBe(201);
    expect((await lee.browser('POST', '/v1/me/tokens', { name: 'browser' })).status).toBe(201);
  });
});
