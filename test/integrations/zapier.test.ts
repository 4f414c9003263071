import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/accounts/store.js';
import { type Person, person } from '../accounts/helpers.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { visitYesterday } from '../helpers/collect.js';
import { startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';
import { startWebhookApp } from '../helpers/webhooks.js';

// Contract §18's Zapier REST hooks over real HTTP: subscribe, the three events' bodies at a
// loopback receiver, leads only, 410 Gone removes the hook, admins only, the address rules.

const SITE = 'https://site.example';
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

let t: TestApp;
let admin: Person;
let member: Person;
let ws: { uuid: string; tracking_script_id: string };
const receivers: Receiver[] = [];
const hooksPath = () => `/v1/workspaces/${ws.uuid}/zapier/hooks`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function receiver(statuses?: number[]): Promise<Receiver> {
  const started = await startReceiver(statuses);
  receivers.push(started);
  return started;
}

const visitFrom = (email: string, paths: string[]) =>
  visitYesterday(t.url, ws.tracking_script_id, SITE, email, paths);

beforeAll(async () => {
  t = await startWebhookApp();
  admin = await person(t, 'admin@zapier.example');
  member = await person(t, 'member@zapier.example');
  ws = (await admin.api('POST', '/v1/workspaces', { url: SITE })).body.data;
  await addMember(t.database.db, ws.uuid, member.id, 'member');
});
afterAll(async () => {
  await t.close();
  await Promise.all(receivers.map((r) => r.close()));
});

describe('Zapier hooks', () => {
  it('subscribes, lists and unsubscribes in the shapes of Snitcher’s API, for admins only', async () => {
    const target = await receiver();
    const made = await admin.api('POST', hooksPath(), { hookUrl: target.url, name: 'My Zap' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      success: true,
      data: { id: expect.any(String), hookUrl: target.url, event: 'new_lead' },
    });
    const listed = await admin.api('GET', hooksPath());
    expect(listed.body).toEqual({
      success: true,
      data: [{ id: made.body.data.id, name: 'My Zap', hookUrl: target.url, event: 'new_lead' }],
    });
    for (const answer of [
      await member.api('GET', hooksPath()),
      await member.api('POST', hooksPath(), { hookUrl: target.url }),
      await member.api('DELETE', `${hooksPath()}/${made.body.data.id}`),
    ]) {
      expect(answer.status).toBe(403);
    }
    const gone = await admin.api('DELETE', `${hooksPath()}/${made.body.data.id}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ success: true, message: expect.any(String) });
    expect((await admin.api('DELETE', `${hooksPath()}/${made.body.data.id}`)).status).toBe(404);
    expect((await admin.api('DELETE', `${hooksPath()}/not-a-hook`)).status).toBe(404);
    expect((await admin.api('GET', hooksPath())).body.data).toEqual([]);
    // Another workspace's admin sees none of it.
    const stranger = await person(t, 'stranger@zapier.example');
    expect((await stranger.api('GET', hooksPath())).status).toBe(404);
  });

  it('refuses what is not a hook address or an event, with the field named', async () => {
    for (const hookUrl of ['not a url', 'ftp://hooks.example/x', '']) {
      const answer = await admin.api('POST', hooksPath(), { hookUrl });
      expect(answer.status, hookUrl).toBe(422);
      expect(Object.keys(answer.body.errors ?? {})).toEqual(['hookUrl']);
    }
    const wrong = await admin.api('POST', hooksPath(), {
      hookUrl: 'https://hooks.example/x',
      event: 'new_deal',
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.success).toBe(false);
    expect((await admin.api('GET', hooksPath())).body.data).toEqual([]);
  });

  it('posts each event’s Organisation, Session or Contact, about leads only', async () => {
    const leads = await receiver();
    const sessions = await receiver();
    const contacts = await receiver();
    for (const [target, event] of [
      [leads, 'new_lead'],
      [sessions, 'new_session'],
      [contacts, 'contacts_revealed'],
    ] as const) {
      const made = await admin.api('POST', hooksPath(), { hookUrl: target.url, event });
      expect(made.status).toBe(201);
      expect(made.body.data.event).toBe(event);
    }
    const hidden = await admin.api('PUT', `/v1/workspaces/${ws.uuid}/excluded-domains`, {
      domains: ['our-customer.example'],
    });
    expect(hidden.status).toBe(200);

    await visitFrom('ann@zap-lead.example', ['/pricing', '/demo']);
    await visitFrom('bob@our-customer.example', ['/pricing']);
    await until(
      () =>
        leads.received.length >= 1 &&
        sessions.received.length >= 1 &&
        contacts.received.length >= 1,
    );
    await pause(2000); // nothing about the hidden organisation may follow
    const [lead] = leads.received.map((r) => JSON.parse(r.body));
    expect(leads.received).toHaveLength(1);
    expect(lead.website).toBe('https://zap-lead.example');
    expect(lead.uuid).toEqual(expect.any(String));
    expect(leads.received[0]?.headers['content-type']).toBe('application/json');

    expect(sessions.received).toHaveLength(1);
    const session = JSON.parse(sessions.received[0]?.body ?? '{}');
    expect(session.organisation.uuid).toBe(lead.uuid);
    expect(session.organisation_uuid).toBe(lead.uuid);
    expect(session.views.map((v: { url: string }) => v.url)).toEqual([
      `${SITE}/pricing`,
      `${SITE}/demo`,
    ]);

    expect(contacts.received).toHaveLength(1);
    const contact = JSON.parse(contacts.received[0]?.body ?? '{}');
    expect(contact).toMatchObject({ email: 'ann@zap-lead.example', organisation_uuid: lead.uuid });

    // A second session of the same person: a new session, not a new lead or contact.
    await visitFrom('ann@zap-lead.example', ['/contact']);
    await until(() => sessions.received.length >= 2);
    await pause(1500);
    expect(leads.received).toHaveLength(1);
    expect(contacts.received).toHaveLength(1);
  });

  it('removes a hook that answers 410 Gone, and retries other failures', async () => {
    const gone = await receiver([410]);
    const flaky = await receiver([500, 200]);
    const goneHook = await admin.api('POST', hooksPath(), { hookUrl: gone.url });
    await admin.api('POST', hooksPath(), { hookUrl: flaky.url });
    await visitFrom('cat@zap-gone.example', ['/']);
    await until(() => gone.received.length >= 1 && flaky.received.length >= 1);
    await until(async () => {
      const hooks = (await admin.api('GET', hooksPath())).body.data as { id: string }[];
      return !hooks.some((hook) => hook.id === goneHook.body.data.id);
    });
    const rows = await t.database.db
      .selectFrom('zapier_deliveries')
      .select(['status', 'attempts', 'last_status_code'])
      .where('workspace_id', '=', ws.uuid)
      .where('last_status_code', '=', 500)
      .execute();
    // The flaky one waits for its retry (a minute later), its failure recorded.
    expect(rows).toEqual([{ status: 'pending', attempts: 1, last_status_code: 500 }]);
  });
});

describe('Zapier hooks and the address rules', () => {
  it('refuses a private address unless ALLOW_PRIVATE_WEBHOOKS is set', async () => {
    const guarded = await startTestApp();
    try {
      const owner = await person(guarded, 'owner@guard.example');
      const space = (await owner.api('POST', '/v1/workspaces', { url: SITE })).body.data;
      for (const hookUrl of ['http://127.0.0.1:9/hooks', 'https://127.0.0.1:9/hooks']) {
        const answer = await owner.api('POST', `/v1/workspaces/${space.uuid}/zapier/hooks`, {
          hookUrl,
        });
        expect(answer.status).toBe(422);
        expect(Object.keys(answer.body.errors ?? {})).toEqual(['hookUrl']);
      }
    } finally {
      await guarded.close();
    }
  });
});
