import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, inOneRateWindow, pageview, visit } from '../helpers/collect.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let collect: ReturnType<typeof collector>;

// Requests "come from" these addresses through X-Forwarded-For (TRUST_PROXY trusts loopback).
const ACME_IP = '81.2.69.160'; // London in the bundled DB-IP data
const UNKNOWN_IP = '8.8.8.8';
const from = (ip: string) => ({ 'x-forwarded-for': ip });

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  api = client(t.url, (await t.operator()).token);
  collect = collector(t.url);
  await upsertIpRanges(t.database.db, [
    { network: '81.2.69.0/24', domain: 'acme.com', name: 'Acme' },
  ]);
});
afterAll(() => t.close());

async function newWorkspace() {
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://acme-site.com' })).body
    .data;
  return { id: workspace.uuid as string, script: workspace.tracking_script_id as string };
}

async function storedEvents(workspaceId: string) {
  return t.database.db
    .selectFrom('events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .execute();
}

const today = () => new Date().toISOString().slice(0, 10);

describe('POST /t/collect', () => {
  it('stores a page view and answers 202 after it is committed', async () => {
    const ws = await newWorkspace();
    const now = Date.now();
    const answer = await collect(
      visit(ws.script, [pageview('https://acme-site.com/', now, 'https://www.google.com/')]),
      from(ACME_IP),
    );
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ accepted: 1 });
    expect(await storedEvents(ws.id)).toHaveLength(1);
    const sessions = await api('GET', `/v1/workspaces/${ws.id}/sessions?date=${today()}`);
    expect(sessions.body.total).toBe(1);
    const [session] = sessions.body.data;
    expect(session.location).toEqual({
      country: 'GB',
      state: 'England',
      city: 'London',
      latitude: expect.any(Number),
      longitude: expect.any(Number),
    });
    expect(session.browser).toBe('Chrome');
    expect(session.device_type).toBe('desktop');
    expect(session.referrer).toBe('https://www.google.com/');
  });

  it('never stores the raw client address', async () => {
    const ws = await newWorkspace();
    await collect(
      visit(ws.script, [pageview('https://acme-site.com/ip', Date.now())]),
      from(ACME_IP),
    );
    const sessions = await t.database.db.selectFrom('sessions').selectAll().execute();
    const events = await t.database.db.selectFrom('events').selectAll().execute();
    expect(JSON.stringify([sessions, events])).not.toContain(ACME_IP);
  });

  it('accepts application/json too, and lets any origin send', async () => {
    const ws = await newWorkspace();
    const preflight = await fetch(`${t.url}/t/collect`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://customer.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const answer = await collect(
      visit(ws.script, [pageview('https://acme-site.com/', Date.now())]),
      {
        'content-type': 'application/json',
        origin: 'https://customer.example',
      },
    );
    expect(answer.status).toBe(202);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  });

  const malformed: [string, (script: string) => unknown][] = [
    ['not JSON', () => '{"tracking_script_id": '],
    ['a JSON array', () => '[]'],
    [
      'no tracking_script_id',
      (s) => ({
        ...visit(s, [pageview('https://a.b/', Date.now())]),
        tracking_script_id: undefined,
      }),
    ],
    [
      'an anonymous_id that is not a UUID',
      (s) => ({ ...visit(s, [pageview('https://a.b/', Date.now())]), anonymous_id: 'me' }),
    ],
    [
      'a session_uuid that is not a UUID',
      (s) => ({ ...visit(s, [pageview('https://a.b/', Date.now())]), session_uuid: 42 }),
    ],
    ['no events', (s) => visit(s, [])],
    ['events that are not a list', (s) => ({ ...visit(s, []), events: { type: 'pageview' } })],
    [
      'an unknown event type',
      (s) => visit(s, [{ type: 'purchase', ts: Date.now(), url: 'https://a.b/' }]),
    ],
    [
      'a bad timestamp',
      (s) => visit(s, [{ type: 'pageview', ts: 'yesterday', url: 'https://a.b/' }]),
    ],
    ['an event without url', (s) => visit(s, [{ type: 'pageview', ts: Date.now() }])],
    [
      'a click without href',
      (s) => visit(s, [{ type: 'click', ts: Date.now(), url: 'https://a.b/' }]),
    ],
    [
      'form fields that are not pairs',
      (s) =>
        visit(s, [{ type: 'form_submit', ts: Date.now(), url: 'https://a.b/', fields: 'email=x' }]),
    ],
    [
      'custom properties that are objects',
      (s) =>
        visit(s, [
          {
            type: 'custom',
            ts: Date.now(),
            url: 'https://a.b/',
            name: 'x',
            properties: { a: { b: 1 } },
          },
        ]),
    ],
  ];

  it.each(malformed)(
    'answers 400 with a message for %s, and stores nothing',
    async (_name, body) => {
      const ws = await newWorkspace();
      // A good event in the same request must not be stored either.
      const answer = await collect(body(ws.script), from(ACME_IP));
      expect(answer.status).toBe(400);
      expect(answer.body.success).toBe(false);
      expect(answer.body.message).toEqual(expect.stringMatching(/\w+/));
      expect(await storedEvents(ws.id)).toHaveLength(0);
    },
  );

  it('answers 413 over 100 events or 64 KiB, and stores nothing', async () => {
    const ws = await newWorkspace();
    const now = Date.now();
    const many = Array.from({ length: 101 }, (_, i) => pageview(`https://acme-site.com/${i}`, now));
    expect((await collect(visit(ws.script, many))).status).toBe(413);
    const big = visit(ws.script, [pageview(`https://acme-site.com/${'x'.repeat(70_000)}`, now)]);
    expect((await collect(big)).status).toBe(413);
    expect(await storedEvents(ws.id)).toHaveLength(0);
  });

  it('cuts over-long titles, link texts and addresses and leaves out nested traits, keeping the visit', async () => {
    const ws = await newWorkspace();
    const now = Date.now();
    const long = `https://acme-site.com/${'a'.repeat(6000)}`;
    const answer = await collect(
      visit(ws.script, [
        { ...pageview(long, now), title: 'T'.repeat(5000) },
        {
          type: 'click',
          ts: now + 1,
          url: 'https://acme-site.com/',
          href: long,
          text: 'x'.repeat(3000),
        },
        {
          type: 'identify',
          ts: now + 2,
          url: 'https://acme-site.com/',
          email: 'jo@acme.com',
          traits: { plan: 'pro', seats: 5, profile: { nested: { deeper: true } }, tags: ['a'] },
        },
      ]),
      from(ACME_IP),
    );
    expect(answer.status).toBe(202);
    const stored = await storedEvents(ws.id);
    const dataOf = (type: string) =>
      (stored.find((event) => event.type === type)?.data ?? {}) as Record<string, unknown>;
    const view = stored.find((event) => event.type === 'pageview');
    expect(view?.url).toHaveLength(4096);
    expect(dataOf('pageview').title).toBe('T'.repeat(1000));
    expect(dataOf('click').href).toHaveLength(4096);
    expect(dataOf('click').text).toBe('x'.repeat(1000));
    expect(dataOf('identify').traits).toEqual({
      plan: 'pro',
      seats: 5,
    });
  });

  it('answers 404 for an unknown script and 410 for an unlinked one', async () => {
    const unknown = await collect(
      visit('nosuchscript0000', [pageview('https://a.b/', Date.now())]),
    );
    expect(unknown.status).toBe(404);
    const ws = await newWorkspace();
    await api('POST', `/v1/workspaces/${ws.id}/unlink`);
    const gone = await collect(visit(ws.script, [pageview('https://a.b/', Date.now())]));
    expect(gone.status).toBe(410);
    expect(await storedEvents(ws.id)).toHaveLength(0);
  });

  it('answers bots 202 but stores nothing, and counts them', async () => {
    const ws = await newWorkspace();
    for (const agent of ['Googlebot/2.1 (+http://www.google.com/bot.html)', 'curl/8.5.0', '']) {
      const answer = await collect(
        visit(ws.script, [pageview('https://acme-site.com/', Date.now())]),
        {
          'user-agent': agent,
        },
      );
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual({ accepted: 0 });
    }
    expect(await storedEvents(ws.id)).toHaveLength(0);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/footfall_events_dropped_total\{step="drop_bots",reason="bot"\} [3-9]/);
  });

  it('drops events of switched-off features and keeps the rest', async () => {
    const ws = await newWorkspace();
    await api('PATCH', `/v1/workspaces/${ws.id}/tracker-features`, {
      click_tracking: false,
      form_tracking: false,
    });
    const now = Date.now();
    const answer = await collect(
      visit(ws.script, [
        pageview('https://acme-site.com/', now),
        {
          type: 'click',
          ts: now + 1,
          url: 'https://acme-site.com/',
          href: 'https://out.example/',
          text: 'Out',
        },
        {
          type: 'form_submit',
          ts: now + 2,
          url: 'https://acme-site.com/',
          form_id: 'f',
          fields: [],
        },
        {
          type: 'download',
          ts: now + 3,
          url: 'https://acme-site.com/',
          href: 'https://acme-site.com/a.pdf',
          text: 'PDF',
        },
      ]),
      from(ACME_IP),
    );
    expect(answer.body).toEqual({ accepted: 2 });
    expect((await storedEvents(ws.id)).map((e) => e.type).sort()).toEqual(['download', 'pageview']);
  });

  it('never stores sensitive form values, even when a client sends them', async () => {
    const ws = await newWorkspace();
    await collect(
      visit(ws.script, [
        {
          type: 'form_submit',
          ts: Date.now(),
          url: 'https://acme-site.com/signup',
          form_id: 'signup',
          fields: [
            { name: 'email', value: 'jane@acme.com' },
            { name: 'password', value: 'hunter2-secret' },
            { name: 'card_number', value: '4111111111111111' },
            { name: 'cvc', value: '123' },
            { name: 'iban', value: 'DE89370400440532013000' },
            { name: 'note', value: 'n'.repeat(600) },
          ],
        },
      ]),
      from(ACME_IP),
    );
    const [event] = await storedEvents(ws.id);
    expect(event).toBeDefined();
    const fields =
      (event?.data as { fields: { name: string; value: string }[] } | undefined)?.fields ?? [];
    expect(fields.map((f) => f.name)).toEqual(['email', 'note']);
    expect(fields[1]?.value).toHaveLength(500);
    const all = JSON.stringify(await storedEvents(ws.id));
    for (const secret of ['hunter2-secret', '4111111111111111', 'DE89370400440532013000']) {
      expect(all).not.toContain(secret);
    }
  });
});

describe('sensitive query parameters', () => {
  it('are cut from page, referrer and link URLs before storing', async () => {
    const ws = await newWorkspace();
    const now = Date.now();
    await collect(
      visit(ws.script, [
        {
          ...pageview('https://acme-site.com/thanks?email=a%40b.co&password=pw-123', now),
          referrer: 'https://acme-site.com/login?token=tok-456&next=%2F',
        },
        {
          type: 'click',
          ts: now + 1,
          url: 'https://acme-site.com/',
          href: 'https://out.example/?card=4111&x=1',
          text: 'Out',
        },
      ]),
      from(ACME_IP),
    );
    const events = await storedEvents(ws.id);
    const stored = JSON.stringify(events);
    for (const secret of ['pw-123', 'tok-456', '4111']) expect(stored).not.toContain(secret);
    expect(events.map((e) => e.url)).toContain('https://acme-site.com/thanks');
  });

  it('never keep an e-mail address, from an old tracker or any other client, and keep the rest', async () => {
    const ws = await newWorkspace();
    const now = Date.now();
    const answer = await collect(
      visit(ws.script, [
        {
          // What a GET sign-up form leaves in the next page's address.
          ...pageview(
            'https://acme-site.com/welcome?email=jane%40acme.com&invite_token=INV-77&plan=pro&utm_source=mail',
            now,
          ),
          referrer: 'https://webmail.example/read?from=bob@partner.example&folder=inbox',
        },
        {
          type: 'click',
          ts: now + 1,
          url: 'https://acme-site.com/welcome?contact=jane%2540acme.com&plan=pro',
          href: 'https://out.example/share?to=jane.doe%40acme.co.uk&ref=acme',
          text: 'Share',
        },
        {
          type: 'form_submit',
          ts: now + 2,
          url: 'https://acme-site.com/newsletter?jane@acme.com',
          form_id: 'newsletter',
          fields: [{ name: 'email', value: 'jane@acme.com' }],
        },
      ]),
      from(ACME_IP),
    );
    expect(answer.status).toBe(202);

    const today = new Date().toISOString().slice(0, 10);
    const { body } = await api('GET', `/v1/workspaces/${ws.id}/sessions?date=${today}`);
    const [session] = body.data;
    expect(session.views.map((view: { url: string }) => view.url)).toEqual([
      'https://acme-site.com/welcome?plan=pro&utm_source=mail',
    ]);
    expect(session.referrer).toBe('https://webmail.example/read?folder=inbox');
    expect(session.events).toEqual([
      expect.objectContaining({ event_type: 'pageview' }),
      expect.objectContaining({
        event_type: 'click',
        url: 'https://acme-site.com/welcome?plan=pro',
        properties: [
          { name: 'href', value: 'https://out.example/share?ref=acme' },
          { name: 'text', value: 'Share' },
        ],
      }),
      expect.objectContaining({
        event_type: 'form_submit',
        url: 'https://acme-site.com/newsletter',
        // A form's own e-mail field is what it is for: kept, as contract §5 says.
        fields: [{ name: 'email', value: 'jane@acme.com' }],
      }),
    ]);
    const stored = JSON.stringify(await storedEvents(ws.id));
    for (const secret of ['bob@partner', 'INV-77', 'jane%40', 'jane%2540', 'jane.doe']) {
      expect(stored).not.toContain(secret);
    }
  });
});

describe('sessions built at ingest', () => {
  it('starts a new session after 30 idle minutes, whatever session id the client sends', async () => {
    const ws = await newWorkspace();
    const visitor = crypto.randomUUID();
    const session = crypto.randomUUID();
    const start = Date.now() - 3 * 3600_000;
    for (const ts of [start, start + 10 * 60_000, start + 41 * 60_000]) {
      await collect(
        visit(ws.script, [pageview('https://acme-site.com/', ts)], { visitor, session }),
        from(ACME_IP),
      );
    }
    const rows = await t.database.db
      .selectFrom('sessions')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(rows).toHaveLength(2);
    const [first, second] = rows.sort((a, b) => a.started_at.getTime() - b.started_at.getTime());
    expect(first?.ended_at.getTime()).toBe(start + 10 * 60_000);
    expect(second?.started_at.getTime()).toBe(start + 41 * 60_000);
  });

  it('keeps one session across client session ids within the idle time, and counts time on page', async () => {
    const ws = await newWorkspace();
    const visitor = crypto.randomUUID();
    const start = Date.now() - 3600_000;
    await collect(
      visit(ws.script, [pageview('https://acme-site.com/a', start, 'https://ref.example/')], {
        visitor,
      }),
      from(ACME_IP),
    );
    await collect(
      visit(
        ws.script,
        [
          pageview('https://acme-site.com/b', start + 42_000),
          {
            type: 'page_leave',
            ts: start + 60_000,
            url: 'https://acme-site.com/b',
            time_on_page: 18,
          },
        ],
        { visitor },
      ),
      from(ACME_IP),
    );
    const listed = await api('GET', `/v1/workspaces/${ws.id}/sessions?date_from=2000-01-01`);
    expect(listed.body.total).toBe(1);
    const [session] = listed.body.data;
    expect(session.visitor_uuid).toBe(visitor);
    expect(session.referrer).toBe('https://ref.example/');
    expect(session.views).toEqual([
      {
        visited_at: new Date(start).toISOString(),
        time_on_page: 42,
        url: 'https://acme-site.com/a',
      },
      {
        visited_at: new Date(start + 42_000).toISOString(),
        time_on_page: 18,
        url: 'https://acme-site.com/b',
      },
    ]);
    expect(session.started_at).toBe(new Date(start).toISOString());
    expect(session.ended_at).toBe(new Date(start + 60_000).toISOString());
  });

  it('makes one session of many simultaneous requests from one visitor', async () => {
    const ws = await newWorkspace();
    const visitor = crypto.randomUUID();
    const now = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        collect(
          visit(ws.script, [pageview(`https://acme-site.com/${i}`, now + i)], {
            visitor,
            session: crypto.randomUUID(),
          }),
          from(ACME_IP),
        ),
      ),
    );
    expect(answers.every((a) => a.status === 202)).toBe(true);
    const rows = await t.database.db
      .selectFrom('sessions')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(await storedEvents(ws.id)).toHaveLength(30);
  });

  it('stores sessions of unidentified visitors without listing them', async () => {
    const ws = await newWorkspace();
    await collect(
      visit(ws.script, [pageview('https://acme-site.com/', Date.now())]),
      from(UNKNOWN_IP),
    );
    expect(await storedEvents(ws.id)).toHaveLength(1);
    const listed = await api('GET', `/v1/workspaces/${ws.id}/sessions?date=${today()}`);
    expect(listed.body.total).toBe(0);
  });

  it('creates the organisation of a matched IP range once per workspace', async () => {
    const ws = await newWorkspace();
    for (let i = 0; i < 3; i++) {
      await collect(
        visit(ws.script, [pageview('https://acme-site.com/', Date.now())]),
        from(ACME_IP),
      );
    }
    const organisations = await t.database.db
      .selectFrom('organisations')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(organisations.map((o) => [o.domain, o.name])).toEqual([['acme.com', 'Acme']]);
    const listed = await api('GET', `/v1/workspaces/${ws.id}/sessions?date=${today()}`);
    expect(
      new Set(listed.body.data.map((s: { organisation_uuid: string }) => s.organisation_uuid)),
    ).toEqual(new Set([organisations[0]?.id]));
  });
});

describe('collector rate limits', () => {
  it('answers 429 with Retry-After past the per-address limit', async () => {
    const limited = await startTestApp({ COLLECT_RATE_LIMIT_PER_IP: '2' });
    try {
      const call = client(limited.url, (await limited.operator()).token);
      const script = (await call('POST', '/v1/workspaces', { url: 'https://a.example' })).body.data
        .tracking_script_id;
      const send = collector(limited.url);
      const body = () => visit(script, [pageview('https://a.example/', Date.now())]);
      await inOneRateWindow();
      expect((await send(body())).status).toBe(202);
      expect((await send(body())).status).toBe(202);
      const refused = await send(body());
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // A page of another origin may read it: the tracker waits that long (contract §19).
      expect(refused.headers.get('access-control-expose-headers')).toBe('retry-after');
      expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await limited.close();
    }
  });
});
