import { afterEach, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';

// The dashboard asks GET /auth/server, signed out, what this server offers: whether it sends
// e-mail (so it offers invites by mail and "Forgot password") and whether PUBLIC_URL is set.
let t: TestApp | undefined;
afterEach(() => t?.close());

describe('GET /auth/server', () => {
  it('says there is no e-mail and no PUBLIC_URL on a server without them', async () => {
    t = await startTestApp();
    const answer = await client(t.url)('GET', '/auth/server');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: { mail: false, public_url: null } });
  });

  it('says e-mail is sent and names PUBLIC_URL when both are set', async () => {
    t = await startTestApp({
      SMTP_URL: 'smtp://user:secret-password@127.0.0.1:2525',
      PUBLIC_URL: 'https://footfall.example.com/',
    });
    const answer = await client(t.url)('GET', '/auth/server');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      data: { mail: true, public_url: 'https://footfall.example.com' },
    });
    expect(JSON.stringify(answer.body)).not.toContain('secret-password');
  });
});
