import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { pageview } from '../helpers/collect.js';
import { type Received, startReceiver, startSlowReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';
import { operatorWith, startWebhookApp } from '../helpers/webhooks.js';

const of = (received: Received[], event: string) =>
  received.filter((r) => r.headers['x-footfall-event'] === event);
const views = (count: number, start = Date.now()) =>
  Array.from({ length: count }, (_, i) => pageview(`https://site.example/${i}`, start + i));

describe('a receiver that trickles its answer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWebhookApp({
      SESSION_IDLE_SECONDS: '2',
      WEBHOOK_TIMEOUT_SECONDS: '2',
      WEBHOOK_RETRY_SECONDS: '1,1',
    });
  });
  afterAll(() => t.close());

  it('holds none of the other deliveries, and is retried until marked failed', async () => {
    // One byte of the status line every 300 ms: never a whole head within the deadline,
    // never idle long enough for a socket timeout.
    const slow = await startSlowReceiver('status', 300);
    const fast = await startReceiver();
    const ended = await startReceiver();
    try {
      const trickled = await operatorWith(t, slow.url, 'event');
      await trickled.send(views(3)); // three event.tracked and one organisation.identified
      await until(() => slow.open() === 4, 10_000);

      const started = Date.now();
      const other = await operatorWith(t, fast.url, 'event');
      await other.send(views(2));
      // A session idle since long ago: its session.ended is enqueued by the same worker.
      const idle = await operatorWith(t, ended.url, 'session');
      await idle.send(views(1, Date.now() - 60_000));
      await until(
        () =>
          of(fast.received, 'event.tracked').length === 2 &&
          of(fast.received, 'organisation.identified').length === 1 &&
          of(ended.received, 'session.ended').length === 1,
        6_000,
      );
      expect(Date.now() - started).toBeLessThan(6_000);
      // Meanwhile the slow ones were still being tried (three attempts take 8 s at least).
      expect((await trickled.deliveries()).map((row) => row.status)).toEqual(
        Array(4).fill('pending'),
      );

      // Each slow delivery: three attempts of 2 s, 1 s apart, then failed.
      await until(async () => {
        const rows = await trickled.deliveries();
        return rows.length === 4 && rows.every((row) => row.status === 'failed');
      }, 25_000);
      for (const row of await trickled.deliveries()) {
        expect(row).toMatchObject({
          status: 'failed',
          attempts: 3,
          last_status_code: null,
          last_error: 'no answer within 2 s',
          next_attempt_at: null,
        });
        expect(slow.requests.filter((r) => r.delivery === row.uuid)).toHaveLength(3);
      }
    } finally {
      await Promise.all([slow.close(), fast.close(), ended.close()]);
    }
  });

  it('is judged on its status line: a 200 head is success however slow its body', async () => {
    const slow = await startSlowReceiver('body', 300);
    try {
      const user = await operatorWith(t, slow.url, 'event');
      const started = Date.now();
      await user.send(views(1));
      await until(async () => {
        const rows = await user.deliveries();
        return rows.length === 2 && rows.every((row) => row.status === 'delivered');
      }, 8_000);
      expect(Date.now() - started).toBeLessThan(8_000);
      for (const row of await user.deliveries()) {
        expect(row).toMatchObject({ attempts: 1, last_status_code: 200, last_error: '' });
      }
      expect(slow.requests).toHaveLength(2);
    } finally {
      await slow.close();
    }
  });
});

describe('deliveries in flight per user', () => {
  let t: TestApp;
  // The contract's 10 s deadline: a user whose receiver never answers keeps its slots that long.
  beforeAll(async () => {
    t = await startWebhookApp({ WEBHOOK_RETRY_SECONDS: '60' });
  });
  afterAll(() => t.close());

  it('are capped, so a user with many hanging deliveries does not stop another', async () => {
    const silent = await startSlowReceiver('silent');
    const fast = await startReceiver();
    try {
      const hanging = await operatorWith(t, silent.url, 'event');
      await hanging.send(views(40)); // more deliveries than the server has slots
      await until(() => silent.open() === 4, 10_000);

      const started = Date.now();
      const other = await operatorWith(t, fast.url, 'event');
      await other.send(views(3));
      await until(() => fast.received.length === 4, 5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(silent.most()).toBe(4);
      expect(silent.requests).toHaveLength(4);

      // A server that stops does not wait out the deadline: it hands the four back, uncounted.
      const stopping = Date.now();
      await t.app.close();
      expect(Date.now() - stopping).toBeLessThan(5_000);
      const left = await t.database.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('user_id', '=', hanging.id)
        .execute();
      expect(left).toHaveLength(41);
      expect(left.filter((row) => row.status !== 'pending' || row.attempts !== 0)).toEqual([]);
    } finally {
      await Promise.all([silent.close(), fast.close()]);
    }
  });
});
