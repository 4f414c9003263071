import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/accounts/store.js';
import { webhookInterest } from '../../src/webhooks/outbox.js';
import { client, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { type Received, startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';
import { SECRET, startWebhookApp } from '../helpers/webhooks.js';

const kinds = (received: Received[]) =>
  received.map((r) => r.headers['x-footfall-event'] as string).sort();

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp({ SESSION_IDLE_SECONDS: '2' });
});
afterAll(() => t.close());

describe('delivery.events: only the chosen kinds are enqueued', () => {
  it('sends organisation.identified to a member who chose only it, never session.ended or event.tracked', async () => {
    // Four members of one workspace: each mode, with every kind (the control that shows
    // the other kinds were sent) and with only organisation.identified.
    const members = await Promise.all(
      [
        ['session', undefined],
        ['event', undefined],
        ['session', ['organisation.identified']],
        ['event', ['organisation.identified']],
      ].map(async ([mode, events]) => {
        const receiver = await startReceiver();
        const user = await t.operator();
        const api = client(t.url, user.token);
        const saved = await api('PATCH', '/radar/operator/v1/webhooks', {
          delivery: { webhook_url: receiver.url, webhook_secret: SECRET, mode, events },
        });
        expect(saved.status).toBe(200);
        return { user, api, receiver };
      }),
    );
    const [sessionAll, eventAll, sessionChosen, eventChosen] = members as [
      (typeof members)[number],
      (typeof members)[number],
      (typeof members)[number],
      (typeof members)[number],
    ];
    try {
      const workspace = (
        await sessionAll.api('POST', '/v1/workspaces', { url: 'https://site.example' })
      ).body.data;
      for (const member of [eventAll, sessionChosen, eventChosen]) {
        await addMember(t.database.db, workspace.uuid, member.user.id, 'member');
      }
      const now = Date.now();
      const sent = await collector(t.url)(
        visit(workspace.tracking_script_id, [
          pageview('https://site.example/', now - 1000),
          pageview('https://site.example/pricing', now),
        ]),
        { 'x-forwarded-for': '81.2.69.160' },
      );
      expect(sent.status).toBe(202);

      // The controls get every kind of their mode...
      await until(() => kinds(sessionAll.receiver.received).includes('session.ended'));
      await until(
        () => kinds(eventAll.receiver.received).filter((k) => k === 'event.tracked').length === 2,
      );
      expect(kinds(sessionAll.receiver.received)).toEqual([
        'organisation.identified',
        'session.ended',
      ]);
      expect(kinds(eventAll.receiver.received)).toEqual([
        'event.tracked',
        'event.tracked',
        'organisation.identified',
      ]);
      // ...while the members who chose get only organisation.identified, once.
      await until(() => sessionChosen.receiver.received.length > 0);
      await until(() => eventChosen.receiver.received.length > 0);
      await sleep(1000); // anything else would have come with the controls' deliveries
      expect(kinds(sessionChosen.receiver.received)).toEqual(['organisation.identified']);
      expect(kinds(eventChosen.receiver.received)).toEqual(['organisation.identified']);
      // Not queued at all: the log shows nothing else for them either.
      for (const member of [sessionChosen, eventChosen]) {
        const log = (await member.api('GET', '/radar/operator/v1/webhooks/deliveries')).body;
        expect(log.data.map((d: { event: string }) => d.event)).toEqual([
          'organisation.identified',
        ]);
      }
    } finally {
      await Promise.all(members.map((member) => member.receiver.close()));
    }
  });

  it('makes no per-event candidates when no member in event mode chose event.tracked', async () => {
    const receiver = await startReceiver();
    try {
      const user = await t.operator();
      const api = client(t.url, user.token);
      await api('PATCH', '/radar/operator/v1/webhooks', {
        delivery: {
          webhook_url: receiver.url,
          webhook_secret: SECRET,
          mode: 'event',
          events: ['organisation.identified', 'organisation.returned'],
        },
      });
      const workspace = (await api('POST', '/v1/workspaces', { url: 'https://other.example' })).body
        .data;
      expect(await webhookInterest(t.database.db, workspace.uuid)).toBe('session');
      await api('PATCH', '/radar/operator/v1/webhooks', {
        delivery: { webhook_url: receiver.url, events: ['event.tracked'] },
      });
      expect(await webhookInterest(t.database.db, workspace.uuid)).toBe('event');
      await api('PATCH', '/radar/operator/v1/webhooks', { delivery: { webhook_url: null } });
      expect(await webhookInterest(t.database.db, workspace.uuid)).toBeNull();
    } finally {
      await receiver.close();
    }
  });
});
