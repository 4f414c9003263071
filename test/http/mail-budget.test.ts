import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Person, person } from '../accounts/helpers.js';
import { type Answer, startTestApp, type TestApp } from '../helpers/app.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());

const recipients = () =>
  smtp.messages.map((mail) => (mail.to && 'text' in mail.to ? mail.to.text : ''));

/** A 429 in the contract's shape, with a Retry-After within the minute. */
function expectRefused(answer: Answer, message: RegExp): void {
  expect(answer.status).toBe(429);
  expect(answer.body).toEqual({ success: false, message: expect.stringMatching(message) });
  const wait = Number(answer.headers.get('retry-after'));
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(60);
  expect(answer.body.message).toMatch(/Try again in \d+ seconds?\./);
}

async function workspaceOf(who: Person, name: string): Promise<string> {
  const made = await who.api('POST', '/v1/workspaces', { url: 'https://acme.example', name });
  expect(made.status).toBe(201);
  return made.body.data.uuid;
}

describe('the mail budget (contract §12)', () => {
  it('lets one user send 60 invites a minute by default; the 61st is refused with 429 and not mailed', async () => {
    const t = await startTestApp({ SMTP_URL: smtp.url });
    try {
      smtp.messages.length = 0;
      const olga = await person(t, 'olga@acme.example');
      const ws = await workspaceOf(olga, 'Acme');
      const invite = (n: number) =>
        olga.api('POST', `/v1/workspaces/${ws}/users/invite`, { email: `guest${n}@acme.example` });
      // Ten at a time, so that the 60 surely fall within one minute on a busy machine.
      for (let batch = 0; batch < 6; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => invite(batch * 10 + i + 1)),
        );
        expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
      }
      const refused = await invite(61);
      expectRefused(refused, /at most 60 e-mails a minute/);
      await until(() => smtp.messages.length >= 60);
      await sleep(500);
      expect(smtp.messages).toHaveLength(60);
      expect(recipients()).not.toContain('guest61@acme.example');
      // A refused invite leaves no link behind.
      const team = await olga.api('GET', `/v1/workspaces/${ws}/users`);
      expect(team.body.invites).toHaveLength(60);
      expect(team.body.invites.map((i: { email: string }) => i.email)).not.toContain(
        'guest61@acme.example',
      );
    } finally {
      await t.close();
    }
  }, 60_000);

  describe('with small budgets', () => {
    let t: TestApp;
    let olga: Person;
    let piet: Person;
    let acme: string;
    beforeAll(async () => {
      t = await startTestApp({
        SMTP_URL: smtp.url,
        MAIL_PER_USER_PER_MINUTE: '4',
        MAIL_PER_WORKSPACE_PER_MINUTE: '6',
      });
      olga = await person(t, 'olga@acme.example');
      piet = await person(t, 'piet@acme.example');
      acme = await workspaceOf(olga, 'Acme');
    });
    afterAll(() => t.close());

    it("counts a user's invites across workspaces, and a workspace's across its members", async () => {
      smtp.messages.length = 0;
      const invite = (who: Person, ws: string, email: string, role = 'member') =>
        who.api('POST', `/v1/workspaces/${ws}/users/invite`, { email, role });
      // Olga makes Piet an admin of Acme: her first e-mail, and Acme's.
      const link = (await invite(olga, acme, 'piet@acme.example', 'admin')).body.data.invite_link;
      const secret = String(link).split('/invite/')[1];
      expect((await piet.browser('POST', `/auth/invites/${secret}/accept`)).status).toBe(204);
      for (const n of [1, 2, 3]) {
        expect((await invite(olga, acme, `o${n}@acme.example`)).status).toBe(200);
      }
      // Olga has sent 4: her own budget is spent, in Acme and in any other workspace.
      expectRefused(
        await invite(olga, acme, 'o4@acme.example'),
        /You can have Footfall send at most 4 e-mails a minute/,
      );
      const other = await workspaceOf(olga, 'Other');
      expectRefused(await invite(olga, other, 'o5@acme.example'), /at most 4 e-mails a minute/);

      // Piet has his own 4, but Acme has only 2 left of its 6.
      expect((await invite(piet, acme, 'p1@acme.example')).status).toBe(200);
      expect((await invite(piet, acme, 'p2@acme.example')).status).toBe(200);
      expectRefused(
        await invite(piet, acme, 'p3@acme.example'),
        /This workspace can send at most 6 e-mails a minute/,
      );
      // Elsewhere Piet still may.
      const his = await workspaceOf(piet, 'Piet');
      expect((await invite(piet, his, 'p4@acme.example')).status).toBe(200);

      await until(() => smtp.messages.length >= 7);
      await sleep(500);
      expect(recipients().sort()).toEqual(
        [
          'piet@acme.example',
          'o1@acme.example',
          'o2@acme.example',
          'o3@acme.example',
          'p1@acme.example',
          'p2@acme.example',
          'p4@acme.example',
        ].sort(),
      );
    });

    it("counts an e-mail rule's test send once per address, before anything is queued", async () => {
      smtp.messages.length = 0;
      // Piet has sent 3 e-mails this minute: one is left.
      const ws = await workspaceOf(piet, 'Tests');
      const rule = async (to: string[]) => {
        const made = await piet.api('POST', `/v1/workspaces/${ws}/notifications`, {
          name: `to ${to.length}`,
          trigger: 'organisation.visited',
          channel: { type: 'email', to },
        });
        expect(made.status).toBe(201);
        return `/v1/workspaces/${ws}/notifications/${made.body.data.uuid}`;
      };
      const two = await rule(['a@acme.example', 'b@acme.example']);
      expectRefused(await piet.api('POST', `${two}/test`), /at most 4 e-mails a minute/);
      expect((await piet.api('GET', `${two}/deliveries`)).body.total).toBe(0);

      // More addresses than the whole budget: retrying would not help, and the answer says so.
      const many = await rule([
        '1@acme.example',
        '2@acme.example',
        '3@acme.example',
        '4@acme.example',
        '5@acme.example',
      ]);
      const tooMany = await piet.api('POST', `${many}/test`);
      expect(tooMany.status).toBe(429);
      expect(tooMany.body.message).toMatch(/would take 5 e-mails at once/);

      const one = await rule(['c@acme.example']);
      expect((await piet.api('POST', `${one}/test`)).status).toBe(202);
      await until(() => smtp.messages.length >= 1);
      await sleep(500);
      expect(recipients()).toEqual(['c@acme.example']);
    });
  });
});
