import { SMTPServer } from 'smtp-server';
import { afterAll, describe, expect, it } from 'vitest';
import { mailServerProblem } from '../../src/mail/transport.js';
import { freePort, killStragglers } from '../helpers/process.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';

// SMTP_URL is checked once at start: a server that is wrong in it keeps running, and its
// log says what is wrong with the mail server (never the password in the URL).
afterAll(killStragglers);

/** A real SMTP server that wants a login and accepts only `footfall` / `right-password`. */
async function serverWithLogin() {
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'footfall' && auth.password === 'right-password') {
        callback(null, { user: 'footfall' });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the mail server check', () => {
  it('accepts a server that greets and takes the login, and names each problem', async () => {
    const open = await startSmtpServer();
    const login = await serverWithLogin();
    const closed = await freePort();
    try {
      expect(await mailServerProblem(open.url)).toBeNull();
      expect(
        await mailServerProblem(`smtp://footfall:right-password@127.0.0.1:${login.port}`),
      ).toBeNull();
      const refused = await mailServerProblem(
        `smtp://footfall:wrong-password@127.0.0.1:${login.port}`,
      );
      expect(refused).toBe(
        `the mail server smtp://127.0.0.1:${login.port} cannot be used: it refused the user name and password in SMTP_URL`,
      );
      expect(await mailServerProblem(`smtp://127.0.0.1:${closed}`)).toBe(
        `the mail server smtp://127.0.0.1:${closed} cannot be used: nothing answers on that port`,
      );
      expect(await mailServerProblem(open.url.replace('smtp:', 'smtps:'))).toMatch(
        /cannot be used: TLS failed: smtps:\/\/ needs a server that speaks TLS at once/,
      );
    } finally {
      await open.close();
      await login.close();
    }
  });

  it('lets the server start with a mail server it cannot use, and warns once without the password', async () => {
    const closed = await freePort();
    const server = await startServerProcess({
      SMTP_URL: `smtp://footfall:p%40ssw0rd-in-url@127.0.0.1:${closed}`,
    });
    try {
      await until(() => server.output().includes('cannot be used'));
      const warnings = server
        .output()
        .split('\n')
        .filter((line) => line.includes('cannot be used'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0] ?? '')).toMatchObject({
        level: 40,
        msg: `the mail server smtp://127.0.0.1:${closed} cannot be used: nothing answers on that port; invites, e-mail alerts and password resets will fail until it is fixed`,
      });
      expect(server.output()).not.toContain('ssw0rd-in-url');
      // Still serving.
      expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
