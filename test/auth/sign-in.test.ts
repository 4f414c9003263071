import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/auth/users.js';
import { cookieClient, cookiesOf, PASSWORD } from '../accounts/helpers.js';
import {
  type Answer,
  client,
  expectFieldError,
  startTestApp,
  type TestApp,
} from '../helpers/app.js';
import { databaseText } from '../helpers/dump.js';

// Each test signs in from a client network of its own (X-Forwarded-For from the trusted
// loopback proxy), so one test's failures never count against another's.
let t: TestApp;
let networks = 0;
const sessionSecrets: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
});
afterAll(() => t.close());

const newNetwork = () => `198.51.100.${++networks}`;

async function user(email: string, password = PASSWORD) {
  return createUser(t.database.db, email, email.split('@')[0], password);
}

/** POST /auth/sign-in as a browser on `network` would send it, with its device cookie if any. */
async function signIn(
  email: string,
  password: string,
  network: string,
  base = t.url,
  device?: string,
) {
  const answer = await client(base)(
    'POST',
    '/auth/sign-in',
    { email, password },
    { 'x-forwarded-for': network, ...(device && { cookie: `footfall_device=${device}` }) },
  );
  const jar = cookiesOf(answer);
  if (jar.footfall_session) sessionSecrets.push(jar.footfall_session);
  return { answer, jar, browser: cookieClient(base, jar) };
}

interface SetCookie {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
}

/** The Set-Cookie lines of an answer, with their attributes as a browser reads them. */
function setCookies(answer: Answer): Record<string, SetCookie> {
  const cookies: Record<string, SetCookie> = {};
  for (const line of answer.headers.getSetCookie()) {
    const [pair = '', ...parts] = line.split(';').map((part) => part.trim());
    const at = pair.indexOf('=');
    const attributes: Record<string, string | true> = {};
    for (const part of parts) {
      const eq = part.indexOf('=');
      if (eq < 0) attributes[part.toLowerCase()] = true;
      else attributes[part.slice(0, eq).toLowerCase()] = part.slice(eq + 1);
    }
    cookies[pair.slice(0, at)] = { name: pair.slice(0, at), value: pair.slice(at + 1), attributes };
  }
  return cookies;
}

const DAY_MS = 86_400_000;

describe('POST /auth/sign-in (contract §12)', () => {
  it('with the right password answers 204 and sets the session and CSRF cookies; the session reads /v1/me', async () => {
    const ada = await user('ada@example.com');
    const before = Date.now();
    const { answer, browser } = await signIn('ada@example.com', PASSWORD, newNetwork());
    expect(answer.status).toBe(204);
    expect(answer.body).toBeUndefined();

    const cookies = setCookies(answer);
    const session = cookies.footfall_session;
    const csrf = cookies.footfall_csrf;
    expect(session?.value).toMatch(/^[\w-]{40,}$/);
    expect(session?.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: '/' });
    expect(session?.attributes.secure).toBeUndefined();
    const expires = Date.parse(String(session?.attributes.expires));
    expect(expires).toBeGreaterThan(before + 30 * DAY_MS - 60_000);
    expect(expires).toBeLessThan(Date.now() + 30 * DAY_MS + 60_000);

    // The CSRF cookie is for the page's script: readable, otherwise alike.
    expect(csrf?.value).toMatch(/^[\w-]{20,}$/);
    expect(csrf?.value).not.toBe(session?.value);
    expect(csrf?.attributes.httponly).toBeUndefined();
    expect(csrf?.attributes).toMatchObject({ samesite: 'Lax', path: '/' });
    expect(csrf?.attributes.secure).toBeUndefined();
    expect(Date.parse(String(csrf?.attributes.expires))).toBe(expires);

    const me = await browser('GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      success: true,
      data: {
        uuid: ada.id,
        name: 'ada',
        email: 'ada@example.com',
        created_at: ada.created_at.toISOString(),
      },
    });
    // Without the cookie the same request is refused.
    expect((await client(t.url)('GET', '/v1/me')).status).toBe(401);
  });

  it('compares the address case-insensitively', async () => {
    await user('Bea.Case@Example.com');
    const { answer, browser } = await signIn(' bea.case@EXAMPLE.com ', PASSWORD, newNetwork());
    expect(answer.status).toBe(204);
    expect((await browser('GET', '/v1/me')).body.data.email).toBe('Bea.Case@Example.com');
  });

  it('marks both cookies Secure when PUBLIC_URL is https', async () => {
    const secure = await startTestApp({ PUBLIC_URL: 'https://footfall.example.com' });
    try {
      await createUser(secure.database.db, 'sec@example.com', 'Sec', PASSWORD);
      const { answer, browser } = await signIn('sec@example.com', PASSWORD, '', secure.url);
      expect(answer.status).toBe(204);
      const cookies = setCookies(answer);
      expect(cookies.footfall_session?.attributes).toMatchObject({
        secure: true,
        httponly: true,
        samesite: 'Lax',
        path: '/',
      });
      expect(cookies.footfall_csrf?.attributes).toMatchObject({ secure: true, samesite: 'Lax' });
      expect((await browser('GET', '/v1/me')).status).toBe(200);
    } finally {
      await secure.close();
    }
  });

  it('answers a wrong password and an unknown address with the same 401 and body', async () => {
    await user('cy@example.com');
    const network = newNetwork();
    const wrong = await signIn('cy@example.com', 'not the password', network);
    const unknown = await signIn('nobody@example.com', 'not the password', network);
    expect(wrong.answer.status).toBe(401);
    expect(unknown.answer.status).toBe(401);
    expect(wrong.answer.body).toEqual({ success: false, message: expect.any(String) });
    expect(unknown.answer.body).toEqual(wrong.answer.body);
    expect(unknown.answer.headers.get('www-authenticate')).toBe(
      wrong.answer.headers.get('www-authenticate'),
    );
    expect(wrong.answer.headers.getSetCookie()).toEqual([]);
    expect(unknown.answer.headers.getSetCookie()).toEqual([]);
  });

  it('refuses a user who has no password yet, like a wrong password', async () => {
    await createUser(t.database.db, 'nopass@example.com');
    const { answer } = await signIn('nopass@example.com', '', newNetwork());
    expect(answer.status).toBe(401);
  });
});

describe('sign-in limits (contract §12)', () => {
  it('after 5 failures for one address from one network, the next attempt from there is 429 with Retry-After, even with the right password', async () => {
    await user('dee@example.com');
    await user('eve@example.com');
    const network = newNetwork();
    for (let i = 0; i < 5; i++) {
      expect((await signIn('dee@example.com', `wrong ${i}`, network)).answer.status).toBe(401);
    }
    const limited = await signIn('dee@example.com', PASSWORD, network);
    expect(limited.answer.status).toBe(429);
    expect(limited.answer.body).toEqual({ success: false, message: expect.any(String) });
    const retryAfter = Number(limited.answer.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(limited.answer.headers.getSetCookie()).toEqual([]);
    // The address is the same in any spelling.
    expect((await signIn('DEE@example.com', PASSWORD, network)).answer.status).toBe(429);

    // Another address from the same network is not affected.
    expect((await signIn('eve@example.com', PASSWORD, network)).answer.status).toBe(204);
  });

  it('wrong passwords from one network never stop the right password from another', async () => {
    await user('oli@example.com');
    const attacker = newNetwork();
    const statuses: number[] = [];
    for (let guess = 0; guess < 40; guess++) {
      statuses.push((await signIn('oli@example.com', `guess ${guess}`, attacker)).answer.status);
    }
    // Five guesses, then nothing more from there: not even the right password.
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    expect((await signIn('oli@example.com', PASSWORD, attacker)).answer.status).toBe(429);
    // Oli, at home or on the road, signs in as usual.
    expect((await signIn('oli@example.com', PASSWORD, newNetwork())).answer.status).toBe(204);
    expect((await signIn('Oli@example.com', PASSWORD, newNetwork())).answer.status).toBe(204);
  });

  it('guesses spread over many networks use up the budget of unknown browsers, never that of a browser the person signed in with', async () => {
    await user('pia@example.com');
    const before = await signIn('pia@example.com', PASSWORD, newNetwork());
    const device = before.jar.footfall_device ?? '';
    expect(device).toMatch(/^[\w-]{40,}$/);
    const cookie = setCookies(before.answer).footfall_device;
    expect(cookie?.attributes).toMatchObject({ httponly: true, samesite: 'Strict', path: '/auth' });

    // Four networks, five guesses each, sent at once: 20, the budget of unknown browsers.
    const networks = Array.from({ length: 4 }, newNetwork);
    const burst = await Promise.all(
      networks.flatMap((network) =>
        Array.from({ length: 5 }, (_, i) => signIn('pia@example.com', `spread ${i}`, network)),
      ),
    );
    expect(burst.map(({ answer }) => answer.status)).toEqual(Array(20).fill(401));
    // A browser Pia never signed in with now waits, wherever it is...
    expect((await signIn('pia@example.com', PASSWORD, newNetwork())).answer.status).toBe(429);
    // ...but hers signs in from any network.
    const back = await signIn('pia@example.com', PASSWORD, newNetwork(), t.url, device);
    expect(back.answer.status).toBe(204);

    // Her device cookie is no free pass: it has a budget of 5 of its own.
    const stolen = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        signIn('pia@example.com', `with her cookie ${i}`, newNetwork(), t.url, device),
      ),
    );
    expect(stolen.map(({ answer }) => answer.status)).toEqual(Array(5).fill(401));
    const sixth = await signIn('pia@example.com', PASSWORD, newNetwork(), t.url, device);
    expect(sixth.answer.status).toBe(429);
    // And it speaks for Pia only: for another address it is an unknown browser.
    await user('quy@example.com');
    const other = await signIn('quy@example.com', PASSWORD, newNetwork(), t.url, device);
    expect(other.answer.status).toBe(204);
  });

  it('slows guessing down: from the third attempt of an address on one network, answers take 0.5 s, 1 s, 2 s, whatever the password', async () => {
    await user('ros@example.com');
    const network = newNetwork();
    const timed = async (password: string) => {
      const started = performance.now();
      const { answer } = await signIn('ros@example.com', password, network);
      return { status: answer.status, ms: performance.now() - started };
    };
    expect((await timed('wrong one')).status).toBe(401);
    expect((await timed('wrong two')).status).toBe(401);
    const third = await timed('wrong three');
    expect(third.status).toBe(401);
    expect(third.ms).toBeGreaterThanOrEqual(490);
    const fourth = await timed('wrong four');
    expect(fourth.status).toBe(401);
    expect(fourth.ms).toBeGreaterThanOrEqual(990);
    // The right password waits as long, so the answer's timing gives nothing away.
    const right = await timed(PASSWORD);
    expect(right.status).toBe(204);
    expect(right.ms).toBeGreaterThanOrEqual(1990);
  });

  it('a successful sign-in clears the count of its address and network', async () => {
    await user('fay@example.com');
    const network = newNetwork();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4; i++) {
        expect((await signIn('fay@example.com', 'wrong', network)).answer.status).toBe(401);
      }
      expect((await signIn('fay@example.com', PASSWORD, network)).answer.status).toBe(204);
    }
    // 8 failures in all, but never 5 since the last success.
    for (let i = 0; i < 4; i++) {
      expect((await signIn('fay@example.com', 'wrong', network)).answer.status).toBe(401);
    }
    expect((await signIn('fay@example.com', 'wrong', network)).answer.status).toBe(401);
    expect((await signIn('fay@example.com', PASSWORD, network)).answer.status).toBe(429);
  });

  it('after 30 failures from one client network over several addresses, that network is 429; others are not', async () => {
    await user('gil@example.com');
    const network = newNetwork();
    for (let address = 0; address < 15; address++) {
      for (let i = 0; i < 2; i++) {
        const { answer } = await signIn(`guess${address}@example.com`, 'wrong', network);
        expect(answer.status).toBe(401);
      }
    }
    const limited = await signIn('gil@example.com', PASSWORD, network);
    expect(limited.answer.status).toBe(429);
    expect(Number(limited.answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signIn('gil@example.com', PASSWORD, newNetwork())).answer.status).toBe(204);
  });

  it('does not count successful sign-ins against the network', async () => {
    await user('ned@example.com');
    const network = newNetwork();
    for (let i = 0; i < 25; i++) {
      const { answer } = await signIn(`stranger${i}@example.com`, 'wrong', network);
      expect(answer.status).toBe(401);
    }
    // An office where everyone signs in from one address: 25 failures and 10 successes.
    for (let i = 0; i < 10; i++) {
      expect((await signIn('ned@example.com', PASSWORD, network)).answer.status).toBe(204);
    }
    for (let i = 0; i < 5; i++) {
      const { answer } = await signIn(`newcomer${i}@example.com`, 'wrong', network);
      expect(answer.status).toBe(401);
    }
    expect((await signIn('ned@example.com', PASSWORD, network)).answer.status).toBe(429);
  });

  it('counts an IPv6 client by its /64', async () => {
    await user('hal@example.com');
    for (let i = 0; i < 30; i++) {
      const { answer } = await signIn(
        `v6guess${i % 15}@example.com`,
        'wrong',
        `2001:db8:0:7::${i}`,
      );
      expect(answer.status).toBe(401);
    }
    expect((await signIn('hal@example.com', PASSWORD, '2001:db8:0:7::ffff')).answer.status).toBe(
      429,
    );
    expect((await signIn('hal@example.com', PASSWORD, '2001:db8:0:8::1')).answer.status).toBe(204);
  });

  it('holds when the attempts arrive all at once: 5 guesses in all, no more', async () => {
    await user('ivy@example.com');
    const network = newNetwork();
    const burst = await Promise.all(
      Array.from({ length: 15 }, (_, i) => signIn('ivy@example.com', `parallel ${i}`, network)),
    );
    const statuses = burst.map(({ answer }) => answer.status);
    expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    let guesses = statuses.filter((status) => status === 401).length;
    expect(guesses).toBeLessThanOrEqual(5);
    // Whatever the burst left unspent can be spent one by one, and then no more.
    for (let more = 0; more < 6; more++) {
      const { answer } = await signIn('ivy@example.com', `one by one ${more}`, network);
      if (answer.status === 429) break;
      expect(answer.status).toBe(401);
      guesses++;
    }
    expect(guesses).toBe(5);
    expect((await signIn('ivy@example.com', PASSWORD, network)).answer.status).toBe(429);
  });
});

describe('POST /auth/sign-out', () => {
  it('ends the session: the old cookie then gets 401', async () => {
    await user('jo@example.com');
    const { browser, jar } = await signIn('jo@example.com', PASSWORD, newNetwork());
    expect((await browser('GET', '/v1/me')).status).toBe(200);

    // A cross-site form cannot sign anyone out: the CSRF header is required.
    expect((await browser('POST', '/auth/sign-out', undefined, { csrf: false })).status).toBe(403);
    expect((await browser('GET', '/v1/me')).status).toBe(200);

    const out = await browser('POST', '/auth/sign-out');
    expect(out.status).toBe(204);
    // The browser is told to forget both cookies.
    const cleared = setCookies(out);
    for (const name of ['footfall_session', 'footfall_csrf']) {
      expect(cleared[name]?.value).toBe('');
      expect(Date.parse(String(cleared[name]?.attributes.expires))).toBeLessThan(Date.now());
    }
    // A copy of the old cookie no longer works either.
    const me = await cookieClient(t.url, jar)('GET', '/v1/me');
    expect(me.status).toBe(401);
    expect(me.body).toEqual({ success: false, message: expect.any(String) });
  });
});

describe('session lifetime', () => {
  it('is renewed on use to 30 days from then; an expired session is 401', async () => {
    const max = await user('max@example.com');
    const { browser, jar } = await signIn('max@example.com', PASSWORD, newNetwork());
    // Time passing, for Max's only session.
    const age = (expiresAt: Date) =>
      t.database.db
        .updateTable('browser_sessions')
        .set({ expires_at: expiresAt })
        .where('user_id', '=', max.id)
        .executeTakeFirstOrThrow();

    // Fresh: no renewal needed, no new cookies.
    expect((await browser('GET', '/v1/me')).headers.getSetCookie()).toEqual([]);

    // As if signed in 3 days ago: this use moves the end to 30 days from now.
    await age(new Date(Date.now() + 27 * DAY_MS));
    const used = await browser('GET', '/v1/me');
    expect(used.status).toBe(200);
    const cookies = setCookies(used);
    for (const name of ['footfall_session', 'footfall_csrf']) {
      const expires = Date.parse(String(cookies[name]?.attributes.expires));
      expect(expires, name).toBeGreaterThan(Date.now() + 30 * DAY_MS - 60_000);
    }
    expect(cookies.footfall_session?.value).toBe(jar.footfall_session);
    expect(cookies.footfall_csrf?.value).toBe(jar.footfall_csrf);
    expect(cookies.footfall_session?.attributes.httponly).toBe(true);

    await age(new Date(Date.now() - 1000));
    expect((await browser('GET', '/v1/me')).status).toBe(401);
  });
});

describe('the CSRF header', () => {
  it('is 403 when it does not match, whatever characters it holds; never a 5xx', async () => {
    await user('lu@example.com');
    const { browser, jar } = await signIn('lu@example.com', PASSWORD, newNetwork());
    const csrf = jar.footfall_csrf ?? '';
    // As long as the real value in characters, but not in bytes (a Latin-1 letter).
    const lookalikes = [`${csrf.slice(0, -1)}\u00e9`, `${csrf.slice(0, -1)}x`, csrf.slice(1), ''];
    for (const value of lookalikes) {
      const answer = await browser('POST', '/auth/sign-out', undefined, {
        csrf: false,
        headers: { 'x-footfall-csrf': value },
      });
      expect(answer.status, JSON.stringify(value)).toBe(403);
      expect(answer.body).toEqual({ success: false, message: expect.any(String) });
    }
    expect((await browser('GET', '/v1/me')).status).toBe(200);
  });
});

describe('POST /auth/password', () => {
  it('changes the password, ends the user’s other sessions and keeps this one', async () => {
    await user('kim@example.com');
    const here = await signIn('kim@example.com', PASSWORD, newNetwork());
    const there = await signIn('kim@example.com', PASSWORD, newNetwork());
    const newPassword = 'a brand new passphrase';

    const wrongCurrent = await here.browser('POST', '/auth/password', {
      current_password: 'not my password',
      password: newPassword,
    });
    expectFieldError(wrongCurrent, 'current_password', true);
    const short = await here.browser('POST', '/auth/password', {
      current_password: PASSWORD,
      password: 'short',
    });
    expectFieldError(short, 'password', true);
    const noCsrf = await here.browser(
      'POST',
      '/auth/password',
      { current_password: PASSWORD, password: newPassword },
      { csrf: false },
    );
    expect(noCsrf.status).toBe(403);
    const anonymous = await client(t.url)('POST', '/auth/password', {
      current_password: PASSWORD,
      password: newPassword,
    });
    expect(anonymous.status).toBe(401);
    // None of those refused changes changed anything.
    expect((await there.browser('GET', '/v1/me')).status).toBe(200);

    const changed = await here.browser('POST', '/auth/password', {
      current_password: PASSWORD,
      password: newPassword,
    });
    expect(changed.status).toBe(204);
    expect((await here.browser('GET', '/v1/me')).status).toBe(200);
    expect((await there.browser('GET', '/v1/me')).status).toBe(401);

    const network = newNetwork();
    expect((await signIn('kim@example.com', PASSWORD, network)).answer.status).toBe(401);
    expect((await signIn('kim@example.com', newPassword, network)).answer.status).toBe(204);
  });

  it('counts wrong current passwords like failed sign-ins: a stolen session cannot keep guessing', async () => {
    await user('lou@example.com');
    const here = await signIn('lou@example.com', PASSWORD, newNetwork());
    const change = (current: string) =>
      here.browser('POST', '/auth/password', {
        current_password: current,
        password: 'a brand new passphrase',
      });
    for (let guess = 1; guess <= 5; guess += 1) {
      expect((await change(`guess number ${guess}`)).status).toBe(422);
    }
    const limited = await change(PASSWORD);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.message).toMatch(/^Too many failed attempts; try again in \d+ minutes?\.$/);
    // Counted as failures of Lou's address from that network (the session's own, loopback
    // here): Lou signing in from there waits too, from anywhere else does not.
    expect((await signIn('lou@example.com', PASSWORD, '127.0.0.1')).answer.status).toBe(429);
    expect((await signIn('lou@example.com', PASSWORD, newNetwork())).answer.status).toBe(204);
  });

  it('ends every personal token of the user: the earlier tokens answer 401, another user’s keep working', async () => {
    const mia = await user('mia@example.com');
    const other = await user('nat@example.com');
    const here = await signIn('mia@example.com', PASSWORD, newNetwork());
    const made = await here.browser('POST', '/v1/me/tokens', { name: 'CRM sync' });
    expect(made.status).toBe(201);
    const tokens = [
      made.body.data.token as string,
      (await t.deps.tokens.issue(mia.id, 'backups', new Date(Date.now() + DAY_MS))).token,
      (await t.deps.tokens.issue(mia.id, 'reports', null)).token,
    ];
    const others = (await t.deps.tokens.issue(other.id, 'nat', null)).token;
    for (const token of tokens)
      expect((await client(t.url, token)('GET', '/v1/me')).status).toBe(200);

    const changed = await here.browser('POST', '/auth/password', {
      current_password: PASSWORD,
      password: 'a brand new passphrase',
    });
    expect(changed.status).toBe(204);
    for (const token of tokens) {
      const answer = await client(t.url, token)('GET', '/v1/me');
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    // None is listed any more; this browser stays signed in and can make a new one.
    expect((await here.browser('GET', '/v1/me/tokens')).body.data).toEqual([]);
    const fresh = await here.browser('POST', '/v1/me/tokens', { name: 'after the change' });
    expect((await client(t.url, fresh.body.data.token)('GET', '/v1/me')).status).toBe(200);
    expect((await client(t.url, others)('GET', '/v1/me')).status).toBe(200);
  });
});

describe('what the database keeps', () => {
  it('holds no session cookie value, only hashes', async () => {
    expect(sessionSecrets.length).toBeGreaterThan(10);
    const text = await databaseText(t.database.db);
    for (const secret of sessionSecrets) expect(text).not.toContain(secret);
    expect(text).not.toContain(PASSWORD);
  });
});
