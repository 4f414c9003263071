import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink } from '../../src/auth/links.js';
import { cookieClient, cookiesOf } from '../accounts/helpers.js';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, visit } from '../helpers/collect.js';
import { HOSTILE, PLAIN } from '../helpers/emails.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let api: ReturnType<typeof client>;
let ws: { uuid: string; tracking_script_id: string };

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ SMTP_URL: smtp.url });
  api = client(t.url, (await t.operator('owner@corp.example')).token);
  ws = (await api('POST', '/v1/workspaces', { url: 'https://corp.example' })).body.data;
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

describe('e-mail addresses are a plain local@domain (contract §12, wave 3)', () => {
  it('setup refuses the hostile forms with 422 and keeps its link; a plain address makes the first user', async () => {
    // A server without users yet: only then does a setup link work.
    const fresh = await startTestApp();
    try {
      const secret = await createLink(fresh.database.db, 'setup', null);
      const setup = (email: string) =>
        client(fresh.url)('POST', `/auth/setup/${secret}`, {
          email,
          name: 'First',
          password: 'a long enough password',
        });
      for (const email of HOSTILE) expectFieldError(await setup(email), 'email', true);
      const made = await setup(PLAIN[0] as string);
      expect(made.status).toBe(204);
      const me = await cookieClient(fresh.url, cookiesOf(made))('GET', '/v1/me');
      expect(me.body.data.email).toBe(PLAIN[0]);
    } finally {
      await fresh.close();
    }
  });

  it('invites refuse them with 422 and mail nothing; plain addresses are invited and mailed as given', async () => {
    for (const email of HOSTILE) {
      expectFieldError(
        await api('POST', `/v1/workspaces/${ws.uuid}/users/invite`, { email }),
        'email',
        true,
      );
    }
    for (const email of PLAIN) {
      const invited = await api('POST', `/v1/workspaces/${ws.uuid}/users/invite`, { email });
      expect(invited.status).toBe(200);
    }
    await until(() => smtp.messages.length >= PLAIN.length);
    const to = smtp.messages.map((mail) => (mail.to && 'value' in mail.to ? mail.to.value : []));
    // One recipient each, the address given (mail software writes domains in lower case).
    expect(to.map((list) => list.map((r) => r.address?.toLowerCase()))).toEqual(
      PLAIN.map((email) => [email.toLowerCase()]),
    );
    const team = await api('GET', `/v1/workspaces/${ws.uuid}/users`);
    expect(team.body.invites.map((i: { email: string }) => i.email).sort()).toEqual(
      [...PLAIN].sort(),
    );
  });

  it('notification rules refuse them as recipients, naming the position, on create and change', async () => {
    const rules = `/v1/workspaces/${ws.uuid}/notifications`;
    const rule = (to: string[]) => ({
      name: 'Visits',
      trigger: 'organisation.visited',
      channel: { type: 'email', to },
    });
    for (const email of HOSTILE) {
      expectFieldError(
        await api('POST', rules, rule([PLAIN[0] as string, email])),
        'channel.to.1',
        true,
      );
    }
    const made = await api('POST', rules, rule(PLAIN));
    expect(made.status).toBe(201);
    expect(made.body.data.channel.to).toEqual(PLAIN);
    for (const email of HOSTILE) {
      expectFieldError(
        await api('PATCH', `${rules}/${made.body.data.uuid}`, {
          channel: { type: 'email', to: [email] },
        }),
        'channel.to.0',
        true,
      );
    }
    expect((await api('GET', `${rules}/${made.body.data.uuid}`)).body.data.channel.to).toEqual(
      PLAIN,
    );
  });

  it('the collector records no contact for them, and does for a plain address', async () => {
    const send = collector(t.url);
    const page = 'https://corp.example/signup';
    for (const email of [...HOSTILE, PLAIN[1] as string]) {
      const answer = await send(visit(ws.tracking_script_id, [identify(page, email, Date.now())]));
      expect(answer.status).toBe(202);
    }
    await until(async () => {
      const contacts = await api('GET', `/v1/workspaces/${ws.uuid}/contacts`);
      return contacts.body.total > 0;
    });
    const contacts = await api('GET', `/v1/workspaces/${ws.uuid}/contacts`);
    expect(contacts.body.data.map((c: { email: string }) => c.email)).toEqual([
      PLAIN[1]?.toLowerCase(),
    ]);
  });
});
