import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let base: string;
const SLACK = 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXsecret';

beforeAll(async () => {
  // Slack URLs must resolve to a public address: this resolver answers one for any host.
  t = await startTestApp({}, { resolve: async () => ['93.184.216.34'] });
  api = client(t.url, (await t.operator()).token);
  const workspace = await api('POST', '/v1/workspaces', { url: 'https://rules.example' });
  base = `/v1/workspaces/${workspace.body.data.uuid}/notifications`;
});
afterAll(() => t.close());

describe('notification rules', () => {
  it('creates, lists, shows, changes and deletes a rule, in the API shape', async () => {
    const created = await api('POST', base, {
      name: 'Pricing views',
      trigger: 'page.visited',
      filter: { url_contains: '/pricing' },
      channel: { type: 'email', to: ['sales@rules.example', 'ceo@rules.example'] },
    });
    expect(created.status).toBe(201);
    const rule = created.body.data;
    expect(rule).toEqual({
      uuid: expect.any(String),
      name: 'Pricing views',
      enabled: true,
      trigger: 'page.visited',
      filter: { segment_uuid: null, url_contains: '/pricing', owner: null },
      channel: {
        type: 'email',
        to: ['sales@rules.example', 'ceo@rules.example'],
        to_owner: false,
      },
      timezone: 'UTC',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await api('GET', base)).body.data).toEqual([rule]);
    expect((await api('GET', `${base}/${rule.uuid}`)).body.data).toEqual(rule);

    const changed = await api('PATCH', `${base}/${rule.uuid}`, {
      enabled: false,
      timezone: 'Europe/Amsterdam',
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      enabled: false,
      timezone: 'Europe/Amsterdam',
      filter: { url_contains: '/pricing' },
    });

    expect((await api('DELETE', `${base}/${rule.uuid}`)).status).toBe(200);
    expect((await api('GET', `${base}/${rule.uuid}`)).status).toBe(404);
    expect((await api('GET', base)).body.data).toEqual([]);
  });

  it('never shows a secret: a Slack URL is masked, a webhook secret is only "set"', async () => {
    const slack = await api('POST', base, {
      name: 'Slack',
      trigger: 'organisation.visited',
      channel: { type: 'slack', webhook_url: SLACK },
    });
    expect(slack.status).toBe(201);
    expect(slack.body.data.channel).toEqual({
      type: 'slack',
      webhook_url: 'https://hooks.slack.com/…cret',
    });
    expect(JSON.stringify(slack.body)).not.toContain('XXXX');
    // A change of the same type without the URL keeps it.
    const renamed = await api('PATCH', `${base}/${slack.body.data.uuid}`, {
      name: 'Slack, renamed',
      channel: { type: 'slack' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.channel.webhook_url).toBe('https://hooks.slack.com/…cret');
    const stored = await t.database.db
      .selectFrom('notification_rules')
      .select('slack_url_encrypted')
      .where('id', '=', slack.body.data.uuid)
      .executeTakeFirstOrThrow();
    expect(stored.slack_url_encrypted?.toString('latin1')).not.toContain('hooks.slack.com');

    const hook = await api('POST', base, {
      name: 'Hook',
      trigger: 'segment.entered',
      channel: { type: 'webhook', url: 'https://hooks.rules.example/in', secret: 'x'.repeat(20) },
    });
    expect(hook.status).toBe(201);
    expect(hook.body.data.channel).toEqual({
      type: 'webhook',
      url: 'https://hooks.rules.example/in',
      secret_set: true,
    });
    expect(JSON.stringify(hook.body)).not.toContain('x'.repeat(20));
  });

  it('refuses what the contract refuses, field by field (422)', async () => {
    const rule = (changes: Record<string, unknown>) =>
      api('POST', base, {
        name: 'A rule',
        trigger: 'organisation.visited',
        channel: { type: 'email', to: ['a@rules.example'] },
        ...changes,
      });
    expectFieldError(await rule({ trigger: 'page.visited' }), 'filter.url_contains');
    expectFieldError(
      await rule({ filter: { segment_uuid: '00000000-0000-4000-8000-000000000000' } }),
      'filter.segment_uuid',
    );
    expectFieldError(await rule({ channel: { type: 'email', to: [] } }), 'channel.to');
    expectFieldError(
      await rule({ channel: { type: 'email', to: ['a@rules.example', 'not an address'] } }),
      'channel.to.1',
    );
    const many = Array.from({ length: 21 }, (_, i) => `p${i}@rules.example`);
    expectFieldError(await rule({ channel: { type: 'email', to: many } }), 'channel.to');
    expectFieldError(
      await rule({ channel: { type: 'slack', webhook_url: 'http://hooks.slack.com/x' } }),
      'channel.webhook_url',
    );
    expectFieldError(await rule({ channel: { type: 'slack' } }), 'channel.webhook_url');
    expectFieldError(
      await rule({ channel: { type: 'webhook', url: 'https://hooks.rules.example/in' } }),
      'channel.secret',
    );
    expectFieldError(
      await rule({
        channel: { type: 'webhook', url: 'https://hooks.rules.example/in', secret: 'short' },
      }),
      'channel.secret',
    );
    expectFieldError(await rule({ timezone: 'Mars/Olympus_Mons' }), 'timezone');
    expectFieldError(await rule({ trigger: 'organisation.left' }), 'trigger');
    expectFieldError(await rule({ name: '   ' }), 'name');
  });

  it('refuses a Slack URL on a private address unless ALLOW_PRIVATE_WEBHOOKS', async () => {
    const privateApp = await startTestApp({}, { resolve: async () => ['10.0.0.5'] });
    try {
      const own = client(privateApp.url, (await privateApp.operator()).token);
      const ws = (await own('POST', '/v1/workspaces', { url: 'https://p.example' })).body.data;
      const answer = await own('POST', `/v1/workspaces/${ws.uuid}/notifications`, {
        name: 'Slack',
        trigger: 'organisation.visited',
        channel: { type: 'slack', webhook_url: 'https://hooks.internal.example/x' },
      });
      expectFieldError(answer, 'channel.webhook_url');
      expect(answer.body.errors['channel.webhook_url'][0]).toContain('non-public');
    } finally {
      await privateApp.close();
    }
  });
});
