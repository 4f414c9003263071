import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvite } from '../../src/accounts/invites.js';
import { findUserByEmail } from '../../src/auth/users.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';
import { cookieClient, cookiesOf, type Person, person, signIn } from './helpers.js';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let owner: Person;
let ws: string;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ SMTP_URL: smtp.url, SMTP_FROM: 'Footfall <team@footfall.test>' });
  owner = await person(t, 'olga@acme.com');
  ws = (await owner.api('POST', '/v1/workspaces', { url: 'https://acme.com', name: 'Acme site' }))
    .body.data.uuid;
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const secretOf = (link: string) => link.split('/invite/')[1] ?? '';

describe('inviting a second person (contract §12)', () => {
  it('e-mails a link; the invitee makes an account through it, signs in and sees the workspace; the link then no longer works', async () => {
    const invited = await owner.api('POST', `/v1/workspaces/${ws}/users/invite`, {
      email: 'Nina@Acme.com',
    });
    expect(invited.status).toBe(200);
    expect(invited.body).toEqual({
      success: true,
      message: 'An invite link has been sent to Nina@Acme.com.',
      data: { invite_link: expect.stringMatching(new RegExp(`^${t.url}/invite/[\\w-]{40,}$`)) },
    });
    const link: string = invited.body.data.invite_link;

    await until(() => smtp.messages.length === 1);
    const mail = smtp.messages[0];
    // Domains are case-insensitive; mail software writes them in lower case.
    expect(mail?.to && 'text' in mail.to ? mail.to.text : '').toBe('Nina@acme.com');
    expect(mail?.from?.text).toBe('"Footfall" <team@footfall.test>');
    expect(mail?.subject).toBe('olga invited you to Acme site on Footfall');
    expect(mail?.text).toContain(link);
    expect(mail?.html).toContain(`href="${link}"`);

    // The team page lists the open invite, and the link's page says what it is for.
    const team = await owner.api('GET', `/v1/workspaces/${ws}/users`);
    expect(team.body.invites).toEqual([
      { email: 'Nina@Acme.com', role: 'member', expires_at: expect.any(String) },
    ]);
    const days = (Date.parse(team.body.invites[0].expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const anonymous = client(t.url);
    const details = await anonymous('GET', `/auth/invites/${secretOf(link)}`);
    expect(details.status).toBe(200);
    expect(details.body).toEqual({
      workspace: { uuid: ws, name: 'Acme site' },
      email: 'Nina@Acme.com',
      role: 'member',
    });

    // Accepting creates the account and signs the invitee in.
    const accepted = await anonymous('POST', `/auth/invites/${secretOf(link)}/accept`, {
      name: 'Nina',
      password: 'nina has a long password',
    });
    expect(accepted.status).toBe(204);
    const nina = cookieClient(t.url, cookiesOf(accepted));
    const me = await nina('GET', '/v1/me');
    expect(me.body.data).toEqual({
      uuid: expect.any(String),
      name: 'Nina',
      email: 'Nina@Acme.com',
      created_at: expect.any(String),
    });
    const listed = await nina('GET', '/v1/workspaces');
    expect(listed.body.data.map((w: { uuid: string }) => w.uuid)).toEqual([ws]);

    // Signing in later, with the chosen password, sees the same.
    const later = await signIn(t.url, 'nina@acme.com', 'nina has a long password');
    expect(later.answer.status).toBe(204);
    const again = cookieClient(t.url, later.jar);
    expect((await again('GET', `/v1/workspaces/${ws}`)).status).toBe(200);
    expect((await again('PATCH', `/v1/workspaces/${ws}`, { usage_limit: 5 })).status).toBe(403);

    // Used: gone.
    expect((await anonymous('GET', `/auth/invites/${secretOf(link)}`)).status).toBe(404);
    const reused = await anonymous('POST', `/auth/invites/${secretOf(link)}/accept`, {
      name: 'Mallory',
      password: 'another long password',
    });
    expect(reused.status).toBe(404);
    const members = (await owner.api('GET', `/v1/workspaces/${ws}/users`)).body;
    expect(members.data.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['olga@acme.com', 'owner'],
      ['Nina@Acme.com', 'member'],
    ]);
    expect(members.invites).toEqual([]);
  });

  it('refuses an expired link', async () => {
    const invited = await owner.api('POST', `/v1/workspaces/${ws}/users/invite`, {
      email: 'late@acme.com',
      role: 'admin',
    });
    const secret = secretOf(invited.body.data.invite_link);
    expect((await client(t.url)('GET', `/auth/invites/${secret}`)).body.role).toBe('admin');
    // Eight days later, as far as the database is concerned.
    await t.database.db
      .updateTable('invites')
      .set({ expires_at: new Date(Date.now() - 86_400_000) })
      .where('email', '=', 'late@acme.com')
      .execute();
    expect((await client(t.url)('GET', `/auth/invites/${secret}`)).status).toBe(404);
    const accept = await client(t.url)('POST', `/auth/invites/${secret}/accept`, {
      name: 'Late',
      password: 'a long enough password',
    });
    expect(accept.status).toBe(404);
    expect((await signIn(t.url, 'late@acme.com', 'a long enough password')).answer.status).toBe(
      401,
    );
    expect((await owner.api('GET', `/v1/workspaces/${ws}/users`)).body.invites).toEqual([]);
  });

  it('lets someone with an account join while signed in as the invited address, and no one else', async () => {
    const carl = await person(t, 'carl@acme.com');
    const dora = await person(t, 'dora@acme.com');
    const invited = await owner.api('POST', `/v1/workspaces/${ws}/users/invite`, {
      email: 'carl@acme.com',
    });
    const secret = secretOf(invited.body.data.invite_link);
    const asDora = await dora.browser('POST', `/auth/invites/${secret}/accept`);
    expect(asDora.status).toBe(403);
    // Without its session, an existing account cannot join: no password is checked.
    const guessed = await client(t.url)('POST', `/auth/invites/${secret}/accept`, {
      password: 'not carls password',
    });
    expect(guessed.status).toBe(401);
    expect((await carl.browser('POST', `/auth/invites/${secret}/accept`)).status).toBe(204);
    expect((await carl.api('GET', `/v1/workspaces/${ws}`)).status).toBe(200);
    expect((await dora.api('GET', `/v1/workspaces/${ws}`)).status).toBe(404);
  });

  it('never checks a password for an address that has an account: 40 guesses, the right one last, neither sign in nor join', async () => {
    const vic = await person(t, 'vic@bank.example');
    // Anyone with an account can make a workspace and invite any address, keeping the link.
    const mallory = await person(t, 'mallory@acme.com');
    const space = (await mallory.api('POST', '/v1/workspaces', { url: 'https://trap.example' }))
      .body.data.uuid;
    const invited = await mallory.api('POST', `/v1/workspaces/${space}/users/invite`, {
      email: 'vic@bank.example',
    });
    const secret = secretOf(invited.body.data.invite_link);
    const guesses = [...Array.from({ length: 39 }, (_, i) => `guess number ${i}`), vic.password];
    for (const password of guesses) {
      const answer = await client(t.url)('POST', `/auth/invites/${secret}/accept`, {
        name: 'Vic',
        password,
      });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({
        success: false,
        message:
          'An account for vic@bank.example exists: sign in as vic@bank.example, then open this link again to accept.',
      });
      expect(answer.headers.getSetCookie()).toEqual([]);
    }
    // Vic joined nothing, the link is still open, and Vic's password is unchanged.
    expect((await vic.api('GET', `/v1/workspaces/${space}`)).status).toBe(404);
    expect((await client(t.url)('GET', `/auth/invites/${secret}`)).status).toBe(200);
    expect((await signIn(t.url, vic.email, vic.password)).answer.status).toBe(204);

    // Vic, signed in, accepts with the session cookie.
    expect((await vic.browser('POST', `/auth/invites/${secret}/accept`)).status).toBe(204);
    expect((await vic.api('GET', `/v1/workspaces/${space}`)).status).toBe(200);
  });

  it('refuses to invite a member again, and a bad address', async () => {
    expectFieldError(
      await owner.api('POST', `/v1/workspaces/${ws}/users/invite`, { email: 'OLGA@acme.com' }),
      'email',
    );
    expectFieldError(
      await owner.api('POST', `/v1/workspaces/${ws}/users/invite`, { email: 'not an address' }),
      'email',
    );
    expectFieldError(
      await owner.api('POST', `/v1/workspaces/${ws}/users/invite`, {
        email: 'x@acme.com',
        role: 'owner',
      }),
      'role',
    );
  });

  it('refuses, never with a 5xx, an invite made for an address that is no longer accepted, and a second tab accepting at once', async () => {
    // An invite stored before addresses had to be plain ones (x<attacker@evil.example>).
    const old = await createInvite(t.database.db, {
      workspaceId: ws,
      email: 'x<attacker@evil.example>',
      role: 'member',
      invitedBy: owner.id,
    });
    expect((await client(t.url)('GET', `/auth/invites/${old}`)).status).toBe(200);
    const refused = await client(t.url)('POST', `/auth/invites/${old}/accept`, {
      name: 'X',
      password: 'a fine long password',
    });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({
      success: false,
      message: 'This invite link no longer works; ask for a new invite.',
    });
    expect(await findUserByEmail(t.database.db, 'x<attacker@evil.example>')).toBeUndefined();

    // Two tabs of a new invitee: one makes the account and joins, the other is told it exists.
    const invited = await owner.api('POST', `/v1/workspaces/${ws}/users/invite`, {
      email: 'twin@acme.com',
    });
    const secret = secretOf(invited.body.data.invite_link);
    const both = await Promise.all(
      [1, 2].map(() =>
        client(t.url)('POST', `/auth/invites/${secret}/accept`, {
          name: 'Twin',
          password: 'a fine long password',
        }),
      ),
    );
    expect(both.map((answer) => answer.status).sort()).toEqual([204, 401]);
    const members = (await owner.api('GET', `/v1/workspaces/${ws}/users`)).body.data;
    expect(members.filter((m: { email: string }) => m.email === 'twin@acme.com')).toHaveLength(1);
  });

  it('without SMTP_URL, answers the link to share instead of mailing it', async () => {
    const plain = await startTestApp({ PUBLIC_URL: 'https://footfall.acme.com' });
    try {
      const boss = await plain.operator('boss@acme.com');
      const api = client(plain.url, boss.token);
      const space = (await api('POST', '/v1/workspaces', { url: 'https://acme.com' })).body.data;
      const invited = await api('POST', `/v1/workspaces/${space.uuid}/users/invite`, {
        email: 'eve@acme.com',
      });
      expect(invited.body.message).toBe('Share this invite link with eve@acme.com.');
      expect(invited.body.data.invite_link).toMatch(/^https:\/\/footfall\.acme\.com\/invite\//);
    } finally {
      await plain.close();
    }
  });
});

describe('members and roles', () => {
  it('changes roles, keeps an owner, lets admins manage members but not owners, and lets anyone leave', async () => {
    const space = (await owner.api('POST', '/v1/workspaces', { url: 'https://acme.com' })).body.data
      .uuid;
    const join = async (who: Person, role: 'admin' | 'member') => {
      const invited = await owner.api('POST', `/v1/workspaces/${space}/users/invite`, {
        email: who.email,
        role,
      });
      const accepted = await who.browser(
        'POST',
        `/auth/invites/${secretOf(invited.body.data.invite_link)}/accept`,
      );
      expect(accepted.status).toBe(204);
    };
    const ada = await person(t, 'ada@acme.com');
    const ben = await person(t, 'ben@acme.com');
    await join(ada, 'admin');
    await join(ben, 'member');
    const path = (who: Person) => `/v1/workspaces/${space}/users/${who.id}`;

    // The last owner can neither be demoted nor leave.
    const demote = await owner.api('PATCH', path(owner), { role: 'admin' });
    expect(demote.status).toBe(422);
    expect((await owner.api('DELETE', path(owner))).status).toBe(422);
    // An admin cannot touch an owner, nor make one; a member cannot manage anyone.
    expect((await ada.api('PATCH', path(owner), { role: 'member' })).status).toBe(403);
    expect((await ada.api('PATCH', path(ben), { role: 'owner' })).status).toBe(403);
    expect((await ada.api('DELETE', path(owner))).status).toBe(403);
    expect((await ben.api('PATCH', path(ada), { role: 'member' })).status).toBe(403);
    const promoted = await ada.api('PATCH', path(ben), { role: 'admin' });
    expect(promoted.body).toEqual({
      success: true,
      data: { uuid: ben.id, name: 'ben', email: 'ben@acme.com', role: 'admin' },
    });
    // With a second owner, the first may step down, then leave.
    expect((await owner.api('PATCH', path(ada), { role: 'owner' })).status).toBe(200);
    expect((await owner.api('PATCH', path(owner), { role: 'member' })).status).toBe(200);
    expect((await owner.api('DELETE', path(owner))).status).toBe(204);
    expect((await owner.api('GET', `/v1/workspaces/${space}`)).status).toBe(404);
    // A member leaves by themselves.
    expect((await ada.api('PATCH', path(ben), { role: 'member' })).status).toBe(200);
    expect((await ben.api('DELETE', path(ben))).status).toBe(204);
    const team = (await ada.api('GET', `/v1/workspaces/${space}/users`)).body.data;
    expect(team.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['ada@acme.com', 'owner'],
    ]);
    // Someone not in the workspace is not a member to change.
    expect((await ada.api('PATCH', path(ben), { role: 'admin' })).status).toBe(404);
  });
});
