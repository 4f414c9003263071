import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectFieldError, type TestApp } from '../helpers/app.js';
import { pageview } from '../helpers/collect.js';
import { type Received, startReceiver, startSlowReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';
import { operatorWith, SECRET, startWebhookApp } from '../helpers/webhooks.js';

const ALL_KINDS = [
  'session.ended',
  'event.tracked',
  'organisation.identified',
  'organisation.returned',
  'segment.entered',
];
const path = '/radar/operator/v1/webhooks';

/** What a receiver does before trusting a delivery: recent timestamp, HMAC of the raw body. */
function verifiedAsReceiver(received: Received, secret = SECRET): boolean {
  const timestamp = String(received.headers['x-footfall-timestamp']);
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) {
    return false;
  }
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${received.body}`).digest('hex')}`;
  const given = String(received.headers['x-footfall-signature'] ?? '');
  return (
    given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected))
  );
}

let t: TestApp;
beforeAll(async () => {
  // Two attempts a second apart, each given 2 s: failures and pending states come quickly.
  t = await startWebhookApp({ WEBHOOK_RETRY_SECONDS: '1', WEBHOOK_TIMEOUT_SECONDS: '2' });
});
afterAll(() => t.close());

async function withReceiver<T>(run: (receiver: Awaited<ReturnType<typeof startReceiver>>) => T) {
  const receiver = await startReceiver();
  try {
    return await run(receiver);
  } finally {
    await receiver.close();
  }
}

describe('delivery.events in PATCH /radar/operator/v1/webhooks', () => {
  it('defaults to every kind, is kept when omitted, and choosing all restores the default', async () => {
    const api = client(t.url, (await t.operator()).token);
    const first = await api('PATCH', path, {
      delivery: { webhook_url: 'http://127.0.0.1:9/a', webhook_secret: SECRET },
    });
    expect(first.status).toBe(200);
    expect(first.body.data[0].delivery.events).toEqual(ALL_KINDS);

    const chosen = await api('PATCH', path, {
      delivery: {
        webhook_url: 'http://127.0.0.1:9/a',
        events: ['segment.entered', 'organisation.identified', 'segment.entered'],
      },
    });
    expect(chosen.status).toBe(200);
    // Once each, in the documented order.
    expect(chosen.body.data[0].delivery.events).toEqual([
      'organisation.identified',
      'segment.entered',
    ]);
    const moved = await api('PATCH', path, { delivery: { webhook_url: 'http://127.0.0.1:9/b' } });
    expect(moved.body.data[0].delivery.events).toEqual([
      'organisation.identified',
      'segment.entered',
    ]);
    expect((await api('GET', path)).body.data[0].delivery).toEqual(moved.body.data[0].delivery);

    // Switching off and on again keeps the choice too.
    await api('PATCH', path, { delivery: { webhook_url: null } });
    const back = await api('PATCH', path, { delivery: { webhook_url: 'http://127.0.0.1:9/c' } });
    expect(back.body.data[0].delivery.events).toEqual([
      'organisation.identified',
      'segment.entered',
    ]);

    const reset = await api('PATCH', path, {
      delivery: { webhook_url: 'http://127.0.0.1:9/c', events: [...ALL_KINDS].reverse() },
    });
    expect(reset.body.data[0].delivery.events).toEqual(ALL_KINDS);
    // Stored as "every kind", so kinds added later are sent too.
    const row = await t.database.db
      .selectFrom('webhook_configs')
      .select('events')
      .where('url', '=', 'http://127.0.0.1:9/c')
      .executeTakeFirstOrThrow();
    expect(row.events).toBeNull();
  });

  it('refuses unknown kinds by position, and an empty list', async () => {
    const api = client(t.url, (await t.operator()).token);
    const unknown = await api('PATCH', path, {
      delivery: {
        webhook_url: 'http://127.0.0.1:9/a',
        webhook_secret: SECRET,
        events: ['session.ended', 'organisation.visited'],
      },
    });
    expectFieldError(unknown, 'delivery.events.1', true);
    expect(unknown.body.errors['delivery.events.1'][0]).toContain('organisation.identified');
    for (const wrong of [7, 'session.ended', [null], null]) {
      const answer = await api('PATCH', path, {
        delivery: { webhook_url: 'http://127.0.0.1:9/a', webhook_secret: SECRET, events: wrong },
      });
      expect(answer.status).toBe(422);
    }
    const empty = await api('PATCH', path, {
      delivery: { webhook_url: 'http://127.0.0.1:9/a', webhook_secret: SECRET, events: [] },
    });
    expectFieldError(empty, 'delivery.events', true);
    expect(empty.body.message).toContain('webhook_url to null');
    // Nothing was saved by the refused changes.
    expect((await api('GET', path)).body.data).toEqual([]);
  });
});

describe('POST /radar/operator/v1/webhooks/test', () => {
  it('sends a signed ping the receiver can verify, and logs it', async () => {
    await withReceiver(async (receiver) => {
      const { api } = await operatorWith(t, receiver.url);
      const before = Date.now();
      const answer = await api('POST', `${path}/test`);
      expect(answer.status).toBe(202);
      expect(answer.body.success).toBe(true);
      expect(answer.body.message).toContain(receiver.url);
      const delivery = answer.body.data;
      expect(delivery).toMatchObject({
        event: 'ping',
        workspace_uuid: null,
        status: 'pending',
        attempts: 0,
        redeliveries: 0,
      });
      await until(() => receiver.received.length > 0);
      const [ping] = receiver.received as [Received];
      expect(ping.headers['x-footfall-event']).toBe('ping');
      expect(ping.headers['x-footfall-delivery']).toBe(delivery.uuid);
      expect(ping.headers['content-type']).toBe('application/json');
      expect(verifiedAsReceiver(ping)).toBe(true);
      expect(verifiedAsReceiver(ping, 'another-secret-entirely')).toBe(false);
      const body = JSON.parse(ping.body);
      expect(body).toEqual({
        event: 'ping',
        created_at: delivery.created_at,
        workspace: null,
        organisation: null,
        session: null,
      });
      expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before - 1000);
      await until(
        async () => (await api('GET', `${path}/deliveries`)).body.data[0]?.status === 'delivered',
      );
      const [logged] = (await api('GET', `${path}/deliveries`)).body.data;
      expect(logged).toMatchObject({
        uuid: delivery.uuid,
        event: 'ping',
        workspace_uuid: null,
        attempts: 1,
        last_status_code: 200,
      });
    });
  });

  it('answers 422 with a clear message when no target is configured', async () => {
    const api = client(t.url, (await t.operator()).token);
    const none = await api('POST', `${path}/test`);
    expectFieldError(none, 'delivery.webhook_url', true);
    expect(none.body.message).toContain('No webhook URL is configured');
    await api('PATCH', path, {
      delivery: { webhook_url: 'http://127.0.0.1:9/a', webhook_secret: SECRET },
    });
    await api('PATCH', path, { delivery: { webhook_url: null } });
    expectFieldError(await api('POST', `${path}/test`), 'delivery.webhook_url', true);
    expect((await api('GET', `${path}/deliveries`)).body.total).toBe(0);
  });
});

describe('POST /radar/operator/v1/webhooks/deliveries/{uuid}/redeliver', () => {
  it('sends a past delivery again with the same id and body, freshly signed', async () => {
    await withReceiver(async (receiver) => {
      const { api, send } = await operatorWith(t, receiver.url);
      await send([pageview('https://site.example/', Date.now())]);
      await until(async () =>
        (await api('GET', `${path}/deliveries?status=delivered`)).body.data.some(
          (d: { event: string }) => d.event === 'organisation.identified',
        ),
      );
      const original = receiver.received.find(
        (r) => r.headers['x-footfall-event'] === 'organisation.identified',
      ) as Received;
      const id = original.headers['x-footfall-delivery'] as string;
      const count = receiver.received.length;

      const answer = await api('POST', `${path}/deliveries/${id}/redeliver`);
      expect(answer.status).toBe(202);
      expect(answer.body.data).toMatchObject({
        uuid: id,
        event: 'organisation.identified',
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        delivered_at: null,
        redeliveries: 1,
      });
      expect(answer.body.data.redelivered_at).not.toBeNull();
      // The answer is the delivery as the log shows it (the fields no attempt changes).
      const listed = (await api('GET', `${path}/deliveries?size=100`)).body.data.find(
        (d: { uuid: string }) => d.uuid === id,
      );
      const fixed = ['uuid', 'event', 'workspace_uuid', 'created_at', 'redeliveries'];
      expect(Object.keys(listed).sort()).toEqual(Object.keys(answer.body.data).sort());
      for (const key of [...fixed, 'redelivered_at'])
        expect(listed[key]).toEqual(answer.body.data[key]);

      await until(() => receiver.received.length > count);
      const again = receiver.received[count] as Received;
      expect(again.headers['x-footfall-delivery']).toBe(id);
      expect(again.headers['x-footfall-event']).toBe('organisation.identified');
      expect(again.body).toBe(original.body);
      expect(verifiedAsReceiver(again)).toBe(true);
      await until(async () => {
        const row = (await api('GET', `${path}/deliveries?size=100`)).body.data.find(
          (d: { uuid: string }) => d.uuid === id,
        );
        return row.status === 'delivered';
      });
      const done = (await api('GET', `${path}/deliveries?size=100`)).body.data.find(
        (d: { uuid: string }) => d.uuid === id,
      );
      expect(done).toMatchObject({ attempts: 1, redeliveries: 1, last_status_code: 200 });
    });
  });

  it("answers 404 for another user's delivery, an unknown one and a malformed id", async () => {
    await withReceiver(async (receiver) => {
      const owner = await operatorWith(t, receiver.url);
      const ping = (await owner.api('POST', `${path}/test`)).body.data;
      await until(() => receiver.received.length > 0);
      const other = await operatorWith(t, receiver.url);
      const foreign = await other.api('POST', `${path}/deliveries/${ping.uuid}/redeliver`);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toMatchObject({ success: false, message: 'Delivery not found.' });
      expect(
        (await other.api('POST', `${path}/deliveries/${crypto.randomUUID()}/redeliver`)).status,
      ).toBe(404);
      expect((await other.api('POST', `${path}/deliveries/not-a-uuid/redeliver`)).status).toBe(404);
      expect((await other.api('GET', `${path}/deliveries`)).body.total).toBe(0);
      // Nothing was sent again for the stranger's request.
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(receiver.received).toHaveLength(1);
    });
  });

  it('answers 404 for an id that is not the caller’s before saying anything about a target', async () => {
    await withReceiver(async (receiver) => {
      const owner = await operatorWith(t, receiver.url);
      const ping = (await owner.api('POST', `${path}/test`)).body.data;
      await until(() => receiver.received.length > 0);
      const notFound = { success: false, message: 'Delivery not found.' };
      // A user who never set a target.
      const stranger = client(t.url, (await t.operator()).token);
      for (const id of [ping.uuid, crypto.randomUUID()]) {
        const answer = await stranger('POST', `${path}/deliveries/${id}/redeliver`);
        expect(answer.status, id).toBe(404);
        expect(answer.body).toEqual(notFound);
      }
      // The owner with delivery switched off: their own delivery is 422, others 404.
      expect((await owner.api('PATCH', path, { delivery: { webhook_url: null } })).status).toBe(
        200,
      );
      const random = await owner.api('POST', `${path}/deliveries/${crypto.randomUUID()}/redeliver`);
      expect(random.status).toBe(404);
      expect(random.body).toEqual(notFound);
      expectFieldError(
        await owner.api('POST', `${path}/deliveries/${ping.uuid}/redeliver`),
        'delivery.webhook_url',
      );
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(receiver.received).toHaveLength(1);
    });
  });

  it('refuses a delivery that is still pending with 409', async () => {
    const silent = await startSlowReceiver('silent');
    try {
      const { api } = await operatorWith(t, silent.url);
      const ping = (await api('POST', `${path}/test`)).body.data;
      await until(() => silent.requests.length > 0);
      const answer = await api('POST', `${path}/deliveries/${ping.uuid}/redeliver`);
      expect(answer.status).toBe(409);
      expect(answer.body.message).toContain('still pending');
    } finally {
      await silent.close();
    }
  });
});

describe('GET /radar/operator/v1/webhooks/deliveries?status=', () => {
  it('lists only the deliveries in that state, and refuses other values', async () => {
    const good = await startReceiver();
    const silent = await startSlowReceiver('silent');
    const gone = await startReceiver();
    await gone.close(); // its port now refuses connections
    try {
      const { api } = await operatorWith(t, good.url);
      const target = (url: string) => api('PATCH', path, { delivery: { webhook_url: url } });
      const statusOf = async (uuid: string) =>
        (await api('GET', `${path}/deliveries?size=100`)).body.data.find(
          (d: { uuid: string }) => d.uuid === uuid,
        )?.status;

      const delivered = (await api('POST', `${path}/test`)).body.data.uuid;
      await until(async () => (await statusOf(delivered)) === 'delivered');
      await target(gone.url);
      const failed = (await api('POST', `${path}/test`)).body.data.uuid;
      await until(async () => (await statusOf(failed)) === 'failed');
      await target(silent.url);
      const pending = (await api('POST', `${path}/test`)).body.data.uuid;

      const only = async (status: string) => {
        const page = (await api('GET', `${path}/deliveries?status=${status}&size=1`)).body;
        expect(page.total).toBe(1);
        // The page links keep the filter.
        expect(page.first_page_url).toContain(`status=${status}`);
        return page.data.map((d: { uuid: string; status: string }) => [d.uuid, d.status]);
      };
      expect(await only('pending')).toEqual([[pending, 'pending']]);
      expect(await only('delivered')).toEqual([[delivered, 'delivered']]);
      expect(await only('failed')).toEqual([[failed, 'failed']]);
      expect((await api('GET', `${path}/deliveries`)).body.total).toBe(3);

      for (const bad of ['done', 'PENDING', '']) {
        expectFieldError(await api('GET', `${path}/deliveries?status=${bad}`), 'status', true);
      }
    } finally {
      await good.close();
      await silent.close();
    }
  });
});
