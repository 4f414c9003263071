import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { expectShape } from '../helpers/shape.js';

let t: TestApp;
let call: ReturnType<typeof client>;
const path = '/radar/operator/v1/webhooks';
const secret = 'whsec-0123456789abcdef';
const hmac = (key: string, message: string) =>
  `sha256=${createHmac('sha256', key).update(message).digest('hex')}`;

beforeAll(async () => {
  t = await startTestApp();
  call = client(t.url, (await t.operator()).token);
});
afterAll(() => t.close());

describe('PATCH /radar/operator/v1/webhooks', () => {
  it('saves the target and answers its signature, never the secret', async () => {
    const url = 'https://1.1.1.1/hooks/footfall';
    const answer = await call('PATCH', path, {
      delivery: { webhook_url: url, webhook_secret: secret },
    });
    expect(answer.status).toBe(200);
    expectShape(answer.body, { success: 'boolean', data: 'array', message: 'string' });
    expect(answer.body.data).toHaveLength(1);
    expectShape(answer.body.data[0], { delivery: 'object' });
    expectShape(answer.body.data[0].delivery, {
      webhook_url: 'string',
      signature: 'string',
      events: 'array',
    });
    expect(answer.body.data[0].delivery).toEqual({
      webhook_url: url,
      signature: hmac(secret, url),
      events: [
        'session.ended',
        'event.tracked',
        'organisation.identified',
        'organisation.returned',
        'segment.entered',
      ],
    });
    expect(JSON.stringify(answer.body)).not.toContain(secret);
    const read = await call('GET', path);
    expect(read.body.data).toEqual(answer.body.data);
    expect(JSON.stringify(read.body)).not.toContain(secret);
  });

  it('keeps the secret encrypted at rest', async () => {
    const rows = await t.database.db.selectFrom('webhook_configs').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.secret_encrypted.includes(Buffer.from(secret))).toBe(false);
      expect(JSON.stringify(row)).not.toContain(secret);
    }
  });

  it('keeps the secret when a later change omits it, and needs one the first time', async () => {
    const fresh = client(t.url, (await t.operator()).token);
    expectFieldError(
      await fresh('PATCH', path, { delivery: { webhook_url: 'https://1.1.1.1/a' } }),
      'delivery.webhook_secret',
      true,
    );
    await fresh('PATCH', path, {
      delivery: { webhook_url: 'https://1.1.1.1/a', webhook_secret: secret },
    });
    const moved = await fresh('PATCH', path, { delivery: { webhook_url: 'https://8.8.8.8/b' } });
    expect(moved.body.data[0].delivery.signature).toBe(hmac(secret, 'https://8.8.8.8/b'));
  });

  it('switches delivery off with a null url', async () => {
    const off = await call('PATCH', path, { delivery: { webhook_url: null } });
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual([]);
    expect((await call('GET', path)).body.data).toEqual([]);
  });

  it('refuses a short secret and a URL that is not https', async () => {
    expectFieldError(
      await call('PATCH', path, {
        delivery: { webhook_url: 'https://1.1.1.1/', webhook_secret: 'short' },
      }),
      'delivery.webhook_secret',
      true,
    );
    for (const url of ['http://1.1.1.1/hooks', 'ftp://1.1.1.1/', 'not a url']) {
      expectFieldError(
        await call('PATCH', path, { delivery: { webhook_url: url, webhook_secret: secret } }),
        'delivery.webhook_url',
        true,
      );
    }
    expectFieldError(await call('PATCH', path, {}), 'delivery', true);
  });

  it.each([
    'https://127.0.0.1/hooks',
    'https://10.0.0.1/hooks',
    'https://192.168.1.10/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hooks',
    'https://[fd00::1]/hooks',
    'https://[::ffff:127.0.0.1]/hooks',
    'https://[::ffff:7f00:1]/hooks',
    'https://[::127.0.0.1]/hooks',
    'https://[::a00:1]/hooks',
    'https://[::ffff:0:a9fe:a9fe]/hooks',
    'https://[64:ff9b::a00:1]/hooks',
    'https://[64:ff9b::169.254.169.254]/hooks',
    'https://[2002:a00:1::1]/hooks',
    'https://100.64.0.1/hooks',
    'https://localhost/hooks',
  ])('refuses %s, which is or resolves to a private address', async (url) => {
    expectFieldError(
      await call('PATCH', path, { delivery: { webhook_url: url, webhook_secret: secret } }),
      'delivery.webhook_url',
      true,
    );
  });

  it('allows private http targets with ALLOW_PRIVATE_WEBHOOKS', async () => {
    const open = await startTestApp({ ALLOW_PRIVATE_WEBHOOKS: 'true' });
    try {
      const answer = await client(open.url, (await open.operator()).token)('PATCH', path, {
        delivery: { webhook_url: 'http://127.0.0.1:9999/hook', webhook_secret: secret },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data[0].delivery.webhook_url).toBe('http://127.0.0.1:9999/hook');
    } finally {
      await open.close();
    }
  });
});
