import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { pageview } from '../helpers/collect.js';
import { type Received, startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';
import { operatorWith as operatorOf, SECRET, startWebhookApp } from '../helpers/webhooks.js';

const verify = (received: Received) => {
  const timestamp = received.headers['x-footfall-timestamp'] as string;
  const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${received.body}`).digest('hex')}`;
  return received.headers['x-footfall-signature'] === expected;
};
const of = (received: Received[], event: string) =>
  received.filter((r) => r.headers['x-footfall-event'] === event);

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp({ SESSION_IDLE_SECONDS: '2', WEBHOOK_RETRY_SECONDS: '1,1' });
});
afterAll(() => t.close());

const operatorWith = (url: string, mode: 'session' | 'event' = 'session') =>
  operatorOf(t, url, mode);

describe('webhook deliveries', () => {
  it('sends exactly one signed session.ended with the whole session and organisation', async () => {
    const receiver = await startReceiver();
    try {
      const { workspace, send } = await operatorWith(receiver.url);
      const start = Date.now() - 10_000;
      await send([
        pageview('https://site.example/', start),
        pageview('https://site.example/pricing', start + 1000),
      ]);
      await until(() => of(receiver.received, 'session.ended').length > 0);
      await sleep(2500); // a second one would have come by now
      const ended = of(receiver.received, 'session.ended');
      expect(ended).toHaveLength(1);
      const [delivery] = ended as [Received];
      expect(verify(delivery)).toBe(true);
      expect(delivery.headers['x-footfall-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number(delivery.headers['x-footfall-timestamp'])).toBeGreaterThan(
        Date.now() / 1000 - 60,
      );
      const body = JSON.parse(delivery.body);
      expect(Object.keys(body).sort()).toEqual([
        'created_at',
        'event',
        'organisation',
        'session',
        'workspace',
      ]);
      expect(body.event).toBe('session.ended');
      expect(body.workspace).toEqual({
        uuid: workspace.uuid,
        name: workspace.name,
        url: workspace.url,
      });
      expect(body.organisation).toMatchObject({
        name: 'Acme',
        website: 'https://acme.com',
        total_pageviews: 2,
      });
      expect(body.session.views.map((v: { url: string }) => v.url)).toEqual([
        'https://site.example/',
        'https://site.example/pricing',
      ]);
      expect(body.session.organisation_uuid).toBe(body.organisation.uuid);
      // The first identification of the organisation in the workspace is announced too.
      expect(of(receiver.received, 'organisation.identified')).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('retries a 500 with the same delivery id, and shows it delivered', async () => {
    const receiver = await startReceiver([500, 200]);
    try {
      const { api, send } = await operatorWith(receiver.url);
      await send([pageview('https://site.example/', Date.now())]);
      await until(() => of(receiver.received, 'organisation.identified').length >= 2);
      const [first, second] = of(receiver.received, 'organisation.identified') as [
        Received,
        Received,
      ];
      expect(second.headers['x-footfall-delivery']).toBe(first.headers['x-footfall-delivery']);
      expect(second.body).toBe(first.body);
      expect(verify(second)).toBe(true);
      // Newest first: on a slow machine the session may already have ended and its
      // session.ended delivery stand above the one this test is about.
      const identified = async () =>
        (
          (await api('GET', '/radar/operator/v1/webhooks/deliveries')).body.data as {
            event: string;
            status: string;
          }[]
        ).find((delivery) => delivery.event === 'organisation.identified');
      await until(async () => (await identified())?.status === 'delivered');
      expect(await identified()).toMatchObject({
        event: 'organisation.identified',
        status: 'delivered',
        attempts: 2,
        last_status_code: 200,
        next_attempt_at: null,
      });
    } finally {
      await receiver.close();
    }
  });

  it('gives up after the configured attempts and keeps the failed delivery', async () => {
    const receiver = await startReceiver([503]);
    try {
      const { api, send } = await operatorWith(receiver.url);
      await send([pageview('https://site.example/', Date.now())]);
      await until(
        async () =>
          (await api('GET', '/radar/operator/v1/webhooks/deliveries')).body.data[0]?.status ===
          'failed',
      );
      const [row] = (await api('GET', '/radar/operator/v1/webhooks/deliveries')).body.data;
      expect(row).toMatchObject({
        status: 'failed',
        attempts: 3,
        last_status_code: 503,
        last_error: 'answered 503',
      });
      expect(of(receiver.received, 'organisation.identified')).toHaveLength(3);
    } finally {
      await receiver.close();
    }
  });

  it('in event mode, sends one event.tracked per tracked event, each with its single event', async () => {
    const receiver = await startReceiver();
    try {
      const { send } = await operatorWith(receiver.url, 'event');
      const now = Date.now();
      await send([
        pageview('https://site.example/', now),
        {
          type: 'click',
          ts: now + 1,
          url: 'https://site.example/',
          href: 'https://out.example/',
          text: 'Out',
        },
        {
          type: 'custom',
          ts: now + 2,
          url: 'https://site.example/',
          name: 'demo_requested',
          properties: { plan: 'pro' },
        },
        { type: 'page_leave', ts: now + 3, url: 'https://site.example/', time_on_page: 3 },
      ]);
      await until(() => of(receiver.received, 'event.tracked').length >= 3);
      await sleep(1000);
      const tracked = of(receiver.received, 'event.tracked').map((r) => JSON.parse(r.body));
      expect(tracked).toHaveLength(3);
      expect(
        tracked
          .map((b) => b.session.events.map((e: { event_type: string }) => e.event_type))
          .sort(),
      ).toEqual([['click'], ['custom'], ['pageview']]);
    } finally {
      await receiver.close();
    }
  });
});

describe('organisation.returned', () => {
  it('is sent when a known organisation starts a new session, not for its first', async () => {
    const receiver = await startReceiver();
    try {
      const { send } = await operatorWith(receiver.url, 'event');
      await send([pageview('https://site.example/', Date.now() - 60_000)]);
      await until(() => of(receiver.received, 'organisation.identified').length === 1);
      expect(of(receiver.received, 'organisation.returned')).toHaveLength(0);
      await send([pageview('https://site.example/again', Date.now())]); // another visitor, same organisation
      await until(() => of(receiver.received, 'organisation.returned').length === 1);
      const body = JSON.parse((of(receiver.received, 'organisation.returned')[0] as Received).body);
      expect(body.session.views[0].url).toBe('https://site.example/again');
      expect(body.organisation.name).toBe('Acme');
    } finally {
      await receiver.close();
    }
  });
});

describe('the address guard at configuration time', () => {
  it.each(['127.0.0.1', '10.0.0.1', '169.254.169.254', '::1', 'fd00::1'])(
    'refuses an https host that resolves to %s',
    async (address) => {
      const guarded = await startTestApp({}, { resolve: async () => [address] });
      try {
        const api = client(guarded.url, (await guarded.operator()).token);
        const answer = await api('PATCH', '/radar/operator/v1/webhooks', {
          delivery: { webhook_url: 'https://hooks.customer.example/in', webhook_secret: SECRET },
        });
        expect(answer.status).toBe(422);
        // The tenant learns that the name is refused, never what it resolves to inside.
        const [message] = answer.body.errors['delivery.webhook_url'];
        expect(message).toBe('The host hooks.customer.example resolves to a non-public address.');
        expect(message).not.toContain(address);
      } finally {
        await guarded.close();
      }
    },
  );
});

describe('the address guard at delivery time', () => {
  it('refuses a host that resolved publicly when configured but privately when delivering', async () => {
    const receiver = await startReceiver();
    let resolvesTo = ['1.1.1.1'];
    const guarded = await startWebhookApp(
      { ALLOW_PRIVATE_WEBHOOKS: 'false', WEBHOOK_RETRY_SECONDS: '1' },
      { resolve: async () => resolvesTo },
    );
    try {
      const port = new URL(receiver.url).port;
      const user = await operatorOf(guarded, `https://hooks.customer.example:${port}/hooks`);
      resolvesTo = ['127.0.0.1'];
      await user.send([pageview('https://site.example/', Date.now())]);
      await until(async () => (await user.deliveries())[0]?.status === 'failed');
      expect((await user.deliveries())[0]?.last_error).toBe(
        'The host hooks.customer.example resolves to a non-public address.',
      );
      expect(receiver.received).toHaveLength(0);
    } finally {
      await guarded.close();
      await receiver.close();
    }
  });
});

describe('connections', () => {
  it('go to the address looked up for the attempt, never to a pooled socket', async () => {
    const first = await startReceiver();
    const port = Number(new URL(first.url).port);
    const second = await startReceiver([200], { host: '127.0.0.2', port });
    let address = '127.0.0.1';
    // The name exists only in this resolver: the system's would not find it.
    const pinned = await startWebhookApp({}, { resolve: async () => [address] });
    try {
      const url = `http://hooks.customer.example:${port}/hooks`;
      const user = await operatorOf(pinned, url, 'event');
      const delivered = async () =>
        (await user.deliveries()).filter((row) => row.status === 'delivered').length;
      await user.send([pageview('https://site.example/', Date.now())]);
      await until(async () => (await delivered()) === 2); // event.tracked, organisation.identified
      expect(first.received).toHaveLength(2);
      // The first receiver keeps its connections open; the name now points elsewhere.
      address = '127.0.0.2';
      await user.send([pageview('https://site.example/again', Date.now())]);
      await until(async () => (await delivered()) === 4); // event.tracked, organisation.returned
      expect(first.received).toHaveLength(2);
      expect(second.received).toHaveLength(2);
    } finally {
      await pinned.close();
      await Promise.all([first.close(), second.close()]);
    }
  });
});
