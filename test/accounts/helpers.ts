import { createUser } from '../../src/auth/users.js';
import { type Answer, client, type TestApp } from '../helpers/app.js';

/** A person with a password, an access token and a signed-in browser session. */
export interface Person {
  id: string;
  email: string;
  password: string;
  token: string;
  /** The API as this person's token sees it. */
  api: ReturnType<typeof client>;
  /** The API as this person's browser sees it (cookies, and the CSRF header on writes). */
  browser: ReturnType<typeof cookieClient>;
}

export const PASSWORD = 'correct horse battery';

/** The session cookies a sign-in or link answer sets, as a Cookie header's pairs. */
export function cookiesOf(answer: Answer): Record<string, string> {
  const jar: Record<string, string> = {};
  for (const line of answer.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair?.indexOf('=') ?? -1;
    if (pair && at > 0) jar[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return jar;
}

/** A client that sends the browser's cookies, and (unless told not to) the CSRF header. */
export function cookieClient(base: string, jar: Record<string, string>) {
  const call = client(base);
  return (
    method: string,
    path: string,
    body?: unknown,
    options: { csrf?: boolean; headers?: Record<string, string> } = {},
  ) => {
    const cookie = Object.entries(jar)
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
    const csrf: Record<string, string> =
      options.csrf === false ? {} : { 'x-footfall-csrf': jar.footfall_csrf ?? '' };
    return call(method, path, body, { cookie, ...csrf, ...options.headers });
  };
}

export async function signIn(base: string, email: string, password = PASSWORD) {
  const answer = await client(base)('POST', '/auth/sign-in', { email, password });
  return { answer, jar: cookiesOf(answer) };
}

export async function person(t: TestApp, email: string): Promise<Person> {
  const user = await createUser(t.database.db, email, email.split('@')[0], PASSWORD);
  const { token } = await t.deps.tokens.issue(user.id, 'test', null);
  const { answer, jar } = await signIn(t.url, email);
  if (answer.status !== 204) throw new Error(`sign-in failed: ${answer.status}`);
  return {
    id: user.id,
    email,
    password: PASSWORD,
    token,
    api: client(t.url, token),
    browser: cookieClient(t.url, jar),
  };
}
