import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessDomain, emailsOf } from '../../src/identify/identity.js';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import type { TrackedEvent } from '../../src/ingest/body.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { until } from '../helpers/wait.js';

describe('businessDomain', () => {
  it.each([
    ['jane@acme.com', 'acme.com'],
    ['Jane.Doe@Sales.ACME.co.uk', 'acme.co.uk'],
    ['ops@eu.mail.globex.com.au', 'globex.com.au'],
  ])('%s identifies %s', (email, domain) => {
    expect(businessDomain(email)).toBe(domain);
  });

  it.each([
    'jane@gmail.com',
    'jane@outlook.com',
    'jane@web.de',
    'jane@yahoo.co.uk',
    'x@mailinator.com',
    'x@10minutemail.com',
    'not-an-email',
    'x@localhost',
  ])('%s identifies nothing (free-mail, disposable or malformed)', (email) => {
    expect(businessDomain(email)).toBeNull();
  });

  it('finds emails in identify calls and in email fields of submitted forms only', () => {
    const at = new Date();
    // As the collector hands them over: whole tracked events.
    const events: TrackedEvent[] = [
      { type: 'identify', ts: at, url: 'u', data: { email: 'a@acme.com' } },
      {
        type: 'form_submit',
        ts: at,
        url: 'u',
        data: {
          fields: [
            { name: 'work_email', value: 'b@acme.com' },
            { name: 'note', value: 'c@acme.com' },
          ],
        },
      },
      {
        type: 'form_abandon',
        ts: at,
        url: 'u',
        data: { fields: [{ name: 'email', value: 'd@acme.com' }] },
      },
    ];
    expect(emailsOf(events)).toEqual(['a@acme.com', 'b@acme.com']);
  });
});

describe('the identity layer at ingest', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let script: string;
  let ws: string;
  const send = () => collector(t.url);
  const UNKNOWN_IP = { 'x-forwarded-for': '8.8.4.4' };
  const H = 3600_000;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
    api = client(t.url, (await t.operator()).token);
    const workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body
      .data;
    script = workspace.tracking_script_id;
    ws = workspace.uuid;
  });
  afterAll(() => t.close());

  const sessionsOf = (visitor: string) =>
    t.database.db
      .selectFrom('sessions')
      .select(['organisation_id', 'started_at'])
      .where('workspace_id', '=', ws)
      .where('visitor_id', '=', visitor)
      .orderBy('started_at')
      .execute();
  const organisationOf = (domain: string) =>
    t.database.db
      .selectFrom('organisations')
      .select('id')
      .where('workspace_id', '=', ws)
      .where('domain', '=', domain)
      .executeTakeFirst();

  it('identifies by a business email, attributes earlier sessions, and keeps the visitor identified', async () => {
    const visitor = randomUUID();
    const now = Date.now();
    await send()(
      visit(script, [pageview('https://site.example/', now - 5 * H)], { visitor }),
      UNKNOWN_IP,
    );
    expect((await sessionsOf(visitor))[0]?.organisation_id).toBeNull();
    await send()(
      visit(
        script,
        [
          pageview('https://site.example/demo', now - H),
          {
            type: 'identify',
            ts: now - H + 1000,
            url: 'https://site.example/demo',
            email: 'Jane@Initrode.com',
            traits: {},
          },
        ],
        { visitor },
      ),
      UNKNOWN_IP,
    );
    const initrode = await organisationOf('initrode.com');
    expect(initrode).toBeDefined();
    await send()(
      visit(script, [pageview('https://site.example/back', now)], { visitor }),
      UNKNOWN_IP,
    );
    const sessions = await sessionsOf(visitor);
    expect(sessions).toHaveLength(3);
    expect(sessions.map((s) => s.organisation_id)).toEqual([
      initrode?.id,
      initrode?.id,
      initrode?.id,
    ]);
  });

  it('identifies from a submitted form’s email field', async () => {
    const visitor = randomUUID();
    await send()(
      visit(
        script,
        [
          {
            type: 'form_submit',
            ts: Date.now(),
            url: 'https://site.example/contact',
            form_id: 'c',
            fields: [{ name: 'email', value: 'bob@vandelay.com' }],
          },
        ],
        { visitor },
      ),
      UNKNOWN_IP,
    );
    const vandelay = await organisationOf('vandelay.com');
    expect((await sessionsOf(visitor)).map((s) => s.organisation_id)).toEqual([vandelay?.id]);
  });

  it('says how each organisation was found: the e-mail domain, or the operator’s IP range', async () => {
    await upsertIpRanges(t.database.db, [
      { network: '198.51.100.0/24', domain: 'globex.com', name: 'Globex' },
    ]);
    await send()(
      visit(script, [
        {
          type: 'identify',
          ts: Date.now(),
          url: 'https://site.example/',
          email: 'hank@mail.hooli.com',
          traits: {},
        },
      ]),
      UNKNOWN_IP,
    );
    // The collector sees an import within IpRanges.CHECK_MS.
    let byName: Record<string, unknown> = {};
    await until(async () => {
      await send()(visit(script, [pageview('https://site.example/', Date.now())]), {
        'x-forwarded-for': '198.51.100.20',
      });
      const { data } = (await api('GET', `/v1/workspaces/${ws}/organisations?size=100`)).body;
      byName = Object.fromEntries(
        (data as { name: string; identification: unknown }[]).map((o) => [
          o.name,
          o.identification,
        ]),
      );
      return 'Globex' in byName;
    }, 20_000);
    expect(byName['hooli.com']).toEqual({
      method: 'email_domain',
      evidence: { domain: 'hooli.com' },
    });
    expect(byName.Globex).toEqual({
      method: 'ip_range',
      evidence: { source: 'ip-ranges import (CSV)', network: '198.51.100.0/24' },
    });
  });

  it('does not identify by a free-mail address', async () => {
    const visitor = randomUUID();
    await send()(
      visit(
        script,
        [
          {
            type: 'identify',
            ts: Date.now(),
            url: 'https://site.example/',
            email: 'someone@gmail.com',
            traits: {},
          },
        ],
        { visitor },
      ),
      UNKNOWN_IP,
    );
    expect((await sessionsOf(visitor)).map((s) => s.organisation_id)).toEqual([null]);
    expect(await organisationOf('gmail.com')).toBeUndefined();
  });
});

describe('usage limit', () => {
  it('with usage_limit 1, the second new organisation is not attributed while the first keeps being tracked', async () => {
    const t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
    try {
      const api = client(t.url, (await t.operator()).token);
      const workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body
        .data;
      await api('PATCH', `/v1/workspaces/${workspace.uuid}`, { usage_limit: 1 });
      await upsertIpRanges(t.database.db, [
        { network: '81.2.69.0/24', domain: 'first.com', name: 'First' },
        { network: '1.1.1.0/24', domain: 'second.com', name: 'Second' },
      ]);
      const send = collector(t.url);
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      const now = Date.now();
      expect(
        (
          await send(
            visit(workspace.tracking_script_id, [pageview('https://site.example/', now)]),
            from('81.2.69.1'),
          )
        ).status,
      ).toBe(202);
      expect(
        (
          await send(
            visit(workspace.tracking_script_id, [pageview('https://site.example/', now)]),
            from('1.1.1.1'),
          )
        ).status,
      ).toBe(202);
      expect(
        (
          await send(
            visit(workspace.tracking_script_id, [pageview('https://site.example/x', now)]),
            from('81.2.69.2'),
          )
        ).status,
      ).toBe(202);
      const organisations = await t.database.db
        .selectFrom('organisations')
        .select('domain')
        .where('workspace_id', '=', workspace.uuid)
        .execute();
      expect(organisations.map((o) => o.domain)).toEqual(['first.com']);
      const sessions = await t.database.db
        .selectFrom('sessions')
        .select('organisation_id')
        .where('workspace_id', '=', workspace.uuid)
        .execute();
      expect(sessions).toHaveLength(3); // all stored
      expect(sessions.filter((s) => s.organisation_id !== null)).toHaveLength(2); // the first organisation's two
    } finally {
      await t.close();
    }
  });
});
