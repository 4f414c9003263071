import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/auth/users.js';
import { cookieClient, cookiesOf, PASSWORD } from '../accounts/helpers.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { databaseText } from '../helpers/dump.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';

// Requests come through the trusted loopback proxy, each test from networks of its own.
let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let networks = 0;
const newNetwork = () => `203.0.113.${++networks}`;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({
    SMTP_URL: smtp.url,
    SMTP_FROM: 'Footfall <team@footfall.test>',
    TRUST_PROXY: '127.0.0.1',
  });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const NEUTRAL = {
  success: true,
  message:
    'If an account uses that address, a link to choose a new password is on its way to it. It works once, for 24 hours.',
};

function forgot(email: string, network = newNetwork()) {
  return client(t.url)('POST', '/auth/forgot', { email }, { 'x-forwarded-for': network });
}

/** The messages the SMTP server has been given for an address. */
const mailTo = (address: string) =>
  smtp.messages.filter((mail) =>
    (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).some((to) =>
      to.value.some((box) => box.address?.toLowerCase() === address.toLowerCase()),
    ),
  );

describe('POST /auth/forgot (contract §12: "Forgot password" mails a reset link)', () => {
  it('mails a one-time link that chooses a new password; the old password, sessions and tokens end', async () => {
    const ray = await createUser(t.database.db, 'ray@example.com', 'Ray', PASSWORD);
    const tokens = await Promise.all(
      ['crm', 'backups'].map((name) => t.deps.tokens.issue(ray.id, name, null)),
    );
    const signedIn = await client(t.url)('POST', '/auth/sign-in', {
      email: 'ray@example.com',
      password: PASSWORD,
    });
    const before = cookieClient(t.url, cookiesOf(signedIn));

    const asked = await forgot('  RAY@example.com ');
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual(NEUTRAL);
    expect(asked.headers.getSetCookie()).toEqual([]);

    await until(() => mailTo('ray@example.com').length === 1);
    const mail = mailTo('ray@example.com')[0];
    expect(mail?.from?.text).toBe('"Footfall" <team@footfall.test>');
    expect(mail?.subject).toBe('Choose a new password for Footfall');
    const link = new RegExp(`${t.url}/reset/([\\w-]{40,})`).exec(mail?.text ?? '');
    expect(link, mail?.text).not.toBeNull();
    const [url = '', secret = ''] = link ?? [];
    expect(mail?.html).toContain(`href="${url}"`);
    expect(mail?.text).toMatch(/24 hours/);
    expect(mail?.text).toMatch(/did not ask/);
    for (const part of [mail?.text, mail?.html]) expect(part).not.toContain(PASSWORD);
    // The database keeps only the link's hash.
    expect(await databaseText(t.database.db)).not.toContain(secret);

    // The link's page names the account; choosing a password signs in.
    const anonymous = client(t.url);
    expect((await anonymous('GET', `/auth/reset/${secret}`)).body).toEqual({
      success: true,
      data: { email: 'ray@example.com' },
    });
    const chosen = 'my new password from the mail';
    const reset = await anonymous('POST', `/auth/reset/${secret}`, { password: chosen });
    expect(reset.status).toBe(204);
    const after = cookieClient(t.url, cookiesOf(reset));
    expect((await after('GET', '/v1/me')).body.data.email).toBe('ray@example.com');

    // Everything from before the reset has ended.
    expect((await before('GET', '/v1/me')).status).toBe(401);
    for (const { token } of tokens) {
      expect((await client(t.url, token)('GET', '/v1/me')).status).toBe(401);
    }
    const signIn = (password: string) =>
      anonymous('POST', '/auth/sign-in', { email: 'ray@example.com', password });
    expect((await signIn(PASSWORD)).status).toBe(401);
    expect((await signIn(chosen)).status).toBe(204);
    // The link worked once.
    expect(
      (await anonymous('POST', `/auth/reset/${secret}`, { password: 'once more, please' })).status,
    ).toBe(404);
  });

  it('answers an unknown address exactly as a known one, and mails nothing', async () => {
    await createUser(t.database.db, 'sue@example.com', 'Sue', PASSWORD);
    const unknown = await forgot('nobody@example.com');
    const known = await forgot('sue@example.com');
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    expect([...unknown.headers.keys()].sort()).toEqual([...known.headers.keys()].sort());
    // Sue's mail arrives; none ever goes to the unknown address, which is not stored either.
    await until(() => mailTo('sue@example.com').length === 1);
    expect(mailTo('nobody@example.com')).toEqual([]);
    expect(await databaseText(t.database.db)).not.toContain('nobody@example.com');
  });

  it('refuses what is not an e-mail address with 422', async () => {
    for (const email of ['not an address', 'Ray <ray@example.com>', '']) {
      const answer = await forgot(email);
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.errors)).toEqual(['email']);
    }
  });

  it('sends one address at most 3 mails an hour, whatever the network, and one network at most 10 requests', async () => {
    await createUser(t.database.db, 'flo@example.com', 'Flo', PASSWORD);
    for (let i = 0; i < 3; i++) expect((await forgot('flo@example.com')).status).toBe(202);
    const flooded = await forgot('FLO@example.com');
    expect(flooded.status).toBe(429);
    expect(flooded.body).toEqual({ success: false, message: expect.any(String) });
    const wait = Number(flooded.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(3600);
    await until(() => mailTo('flo@example.com').length === 3);
    // The same for an address without an account: the limit tells nobody which exist.
    for (let i = 0; i < 3; i++) expect((await forgot('ghost@example.com')).status).toBe(202);
    expect((await forgot('ghost@example.com')).status).toBe(429);

    const network = newNetwork();
    for (let i = 0; i < 10; i++) {
      expect((await forgot(`someone${i}@example.com`, network)).status).toBe(202);
    }
    expect((await forgot('someone.else@example.com', network)).status).toBe(429);
    expect((await forgot('someone.else@example.com')).status).toBe(202);
    expect(mailTo('flo@example.com')).toHaveLength(3);
  });
});

describe('without SMTP_URL', () => {
  it('answers 404 telling to ask an administrator for a reset link', async () => {
    const plain = await startTestApp();
    try {
      await createUser(plain.database.db, 'ada@example.com', 'Ada', PASSWORD);
      const answer = await client(plain.url)('POST', '/auth/forgot', { email: 'ada@example.com' });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({
        success: false,
        message:
          'This server does not send e-mail: ask an administrator for a reset link (npx --no footfall users reset-link --email ada@example.com).',
      });
      expect((await client(plain.url)('GET', '/auth/server')).body.data.mail).toBe(false);
    } finally {
      await plain.close();
    }
  });
});
