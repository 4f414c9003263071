import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { runFootfall } from '../helpers/process.js';
import { startReceiver } from '../helpers/receiver.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let dir: string;
let env: Record<string, string>;
let ws: string;
const SITE = 'https://site.example';
const UNKNOWN_IP = { 'x-forwarded-for': '8.8.4.4' };
const jane = [randomUUID(), randomUUID()];
const bob = randomUUID();
const kim = randomUUID();
const JANE = 'jane@initrode.com';

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1', ALLOW_PRIVATE_WEBHOOKS: 'true' });
  dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-forget-'));
  env = { DATABASE_URL: t.deps.config.databaseUrl as string, DATA_DIR: dir };
  receiver = await startReceiver([200]);
  api = client(t.url, (await t.operator()).token);
  // Every tracked event goes out as a webhook too, so deliveries hold copies of the data.
  await api('PATCH', '/radar/operator/v1/webhooks', {
    delivery: { webhook_url: receiver.url, webhook_secret: 'a-long-enough-secret', mode: 'event' },
  });
  const workspace = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  ws = workspace.uuid;
  const send = (visitor: string, events: Record<string, unknown>[]) =>
    collector(t.url)(visit(workspace.tracking_script_id, events, { visitor }), UNKNOWN_IP);
  const now = Date.now();
  const signup = (email: string, ts: number) =>
    identify(`${SITE}/signup`, email, ts, { role: 'CTO' });
  const sent = [
    // Jane: a GET form put her address in a page URL; she identifies on two browsers.
    await send(jane[0] as string, [
      pageview(`${SITE}/thanks?email=jane%40initrode.com&company=Initrode`, now - 60_000),
      signup(JANE, now - 50_000),
    ]),
    await send(jane[1] as string, [
      pageview(`${SITE}/`, now - 40_000),
      signup('Jane@Initrode.com', now - 30_000),
    ]),
    // Bob, her colleague, stays.
    await send(bob, [
      pageview(`${SITE}/pricing`, now - 20_000),
      signup('bob@initrode.com', now - 10_000),
    ]),
    // Kim mentions her in a custom event: that event goes, Kim's visit stays.
    await send(kim, [
      pageview(`${SITE}/refer`, now - 5_000),
      {
        type: 'custom',
        ts: now - 4_000,
        url: `${SITE}/refer`,
        name: 'referred',
        properties: { who: JANE },
      },
    ]),
  ];
  expect(sent.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
  // The collector now drops a URL parameter holding an address; versions before it stored
  // the GET form's fields in the next page's address, and forget must find them there too.
  const stored =
    await sql`UPDATE events SET url = ${`${SITE}/thanks?email=jane%40initrode.com&company=Initrode`}
    WHERE workspace_id = ${ws} AND url = ${`${SITE}/thanks?company=Initrode`}`.execute(
      t.database.db,
    );
  expect(stored.numAffectedRows).toBe(1n);
  const [initrode] = (await api('GET', `/v1/workspaces/${ws}/organisations`)).body.data;
  for (const [key, type, value] of [
    ['main_contact', 'email', JANE],
    ['tier', 'text', 'gold'],
  ] as const) {
    await api('POST', `/v1/workspaces/${ws}/custom-fields`, { key, name: key, type });
    await api('PUT', `/v1/workspaces/${ws}/organisations/${initrode.uuid}/custom-fields/${key}`, {
      value,
    });
  }
  // Wait until the worker has rendered and sent every delivery.
  for (let i = 0; i < 100; i++) {
    const waiting = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('workspace_id', '=', ws)
      .where('body', 'is', null)
      .execute();
    if (waiting.length === 0 && receiver.received.length > 0) break;
    await sleep(100);
  }
});
afterAll(async () => {
  await t.close();
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every row of the workspace in every table that could hold a person, as text. */
async function everything(workspace = ws): Promise<string> {
  const db = t.database.db;
  const rows = await Promise.all(
    (
      [
        'sessions',
        'events',
        'visitors',
        'contacts',
        'contact_visitors',
        'webhook_deliveries',
        'custom_field_values',
      ] as const
    ).map((table) =>
      db.selectFrom(table).selectAll().where('workspace_id', '=', workspace).execute(),
    ),
  );
  return JSON.stringify(rows).toLowerCase();
}

const sessionsOf = (visitor: string) =>
  t.database.db
    .selectFrom('sessions')
    .select('id')
    .where('workspace_id', '=', ws)
    .where('visitor_id', '=', visitor)
    .execute();

describe('footfall forget', () => {
  it('removes every row holding the email or the visitor ids, and nobody else’s', async () => {
    const before = await everything();
    for (const trace of [JANE, 'jane%40initrode.com', ...jane]) expect(before).toContain(trace);
    expect(before).toContain('"body":"{'); // deliveries were rendered, with the data in them

    const result = await runFootfall(
      ['forget', '--workspace', ws, '--email', 'JANE@Initrode.com'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      emails: [JANE],
      contacts: 1,
      sessions: 2,
      custom_field_values: 1,
    });
    expect([...report.visitors].sort()).toEqual([...jane].sort());
    expect(report.events).toBeGreaterThanOrEqual(5);
    expect(report.deliveries).toBeGreaterThan(0);

    const after = await everything();
    for (const trace of [JANE, 'jane%40initrode.com', ...jane]) expect(after).not.toContain(trace);

    // Bob and Kim are still there, Kim without the event that named Jane.
    expect(after).toContain('bob@initrode.com');
    expect(await sessionsOf(bob)).toHaveLength(1);
    expect(await sessionsOf(kim)).toHaveLength(1);
    const kimEvents = await t.database.db
      .selectFrom('events')
      .select('type')
      .where('workspace_id', '=', ws)
      .where('session_id', '=', ((await sessionsOf(kim))[0] as { id: string }).id)
      .execute();
    expect(kimEvents.map((e) => e.type)).toEqual(['pageview']);
    expect(after).toContain('"gold"');
    const contacts = await api('GET', `/v1/workspaces/${ws}/contacts`);
    expect(contacts.body.data.map((c: { email: string }) => c.email)).toEqual(['bob@initrode.com']);
  });

  it('by visitor id forgets the person behind it, their address included', async () => {
    const result = await runFootfall(['forget', '--workspace', ws, '--visitor', bob], env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      emails: ['bob@initrode.com'],
      visitors: [bob],
      contacts: 1,
      sessions: 1,
    });
    const after = await everything();
    expect(after).not.toContain('bob@initrode.com');
    expect(after).not.toContain(bob);
    expect(await sessionsOf(kim)).toHaveLength(1);
  });

  it('refuses to guess: exactly one of --email and --visitor, and a workspace that exists', async () => {
    const neither = await runFootfall(['forget', '--workspace', ws], env);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain('exactly one of --email or --visitor');
    const both = await runFootfall(
      ['forget', '--workspace', ws, '--email', JANE, '--visitor', bob],
      env,
    );
    expect(both.code).toBe(1);
    const missing = await runFootfall(
      ['forget', '--workspace', randomUUID(), '--email', JANE],
      env,
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No workspace');
  });
});

describe('footfall forget follows every link of a person', () => {
  // One person, three addresses: one browser gave the first two, a second browser gave
  // the second and the third. Carl, someone else, names the third in his traits.
  const people = {
    lee: { emails: ['lee@work.example', 'lee@home.example', 'lee@club.example'] },
    max: { emails: ['max@work.example', 'max@home.example', 'max@club.example'] },
  };
  const browsers = { lee: [randomUUID(), randomUUID()], max: [randomUUID(), randomUUID()] };
  const carl = randomUUID();
  let space: string;

  beforeAll(async () => {
    const workspace = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
    space = workspace.uuid;
    const send = (visitor: string, events: Record<string, unknown>[]) =>
      collector(t.url)(visit(workspace.tracking_script_id, events, { visitor }), UNKNOWN_IP);
    const now = Date.now();
    const account = (email: string, ts: number, traits: Record<string, unknown> = {}) =>
      identify(`${SITE}/account`, email, ts, traits);
    for (const name of ['lee', 'max'] as const) {
      const [work, home, club] = people[name].emails as [string, string, string];
      const [first, second] = browsers[name] as [string, string];
      const sent = [
        await send(first, [
          pageview(`${SITE}/`, now - 60_000),
          account(work, now - 59_000, { role: 'CTO' }),
          account(home, now - 58_000),
        ]),
        await send(second, [
          pageview(`${SITE}/pricing`, now - 50_000),
          account(home, now - 49_000),
          account(club, now - 48_000, { nickname: name }),
        ]),
      ];
      expect(sent.map((answer) => answer.status)).toEqual([202, 202]);
    }
    const mentions = await send(carl, [
      pageview(`${SITE}/`, now - 10_000),
      account('carl@other.example', now - 9_000, {
        plan: 'pro',
        referred_by: people.lee.emails[2],
        friend: people.max.emails[2],
      }),
    ]);
    expect(mentions.status).toBe(202);
  });

  it('by one address forgets all three and both browsers, and cleans other contacts’ traits', async () => {
    const before = await everything(space);
    for (const trace of [...people.lee.emails, ...browsers.lee]) expect(before).toContain(trace);

    const result = await runFootfall(
      ['forget', '--workspace', space, '--email', people.lee.emails[0] as string],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.emails).toEqual([...people.lee.emails].sort());
    expect(report.visitors).toEqual([...browsers.lee].sort());
    expect(report).toMatchObject({ contacts: 3, sessions: 2, contact_traits: 1 });

    const after = await everything(space);
    for (const trace of [...people.lee.emails, ...browsers.lee]) expect(after).not.toContain(trace);
    // Carl stays, less the trait that named Lee; Max is untouched.
    const contacts = (await api('GET', `/v1/workspaces/${space}/contacts?size=100`)).body.data;
    const carlContact = contacts.find((c: { email: string }) => c.email === 'carl@other.example');
    expect(carlContact.traits).toEqual({ plan: 'pro', friend: people.max.emails[2] });
    for (const trace of [...people.max.emails, ...browsers.max, carl])
      expect(after).toContain(trace);
  });

  it('by a browser forgets the same person as by an address', async () => {
    const result = await runFootfall(
      ['forget', '--workspace', space, '--visitor', browsers.max[1] as string],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.emails).toEqual([...people.max.emails].sort());
    expect(report.visitors).toEqual([...browsers.max].sort());
    const after = await everything(space);
    for (const trace of [...people.max.emails, ...browsers.max]) expect(after).not.toContain(trace);
    expect(after).toContain('carl@other.example');
    expect(after).toContain('"plan":"pro"');
  });
});
