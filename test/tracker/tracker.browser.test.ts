import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { databaseText } from '../helpers/dump.js';

// A small customer site on another loopback address, so the tracker works cross-origin.
function customerSite(snippet: string): Promise<Server> {
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title>${snippet}</head><body>${body}</body></html>`;
  const pages: Record<string, string> = {
    '/': page(
      'Home',
      `<h1>Acme Analytics</h1>
       <button id="to-pricing" onclick="history.pushState({}, '', '/pricing')">Pricing</button>
       <a id="brochure" href="/files/brochure.pdf" download>Brochure</a>
       <form id="newsletter" name="newsletter" onsubmit="return false">
         <input name="newsletter_email" type="email">
       </form>
       <form id="contact" name="contact" action="/thanks" method="get">
         <input name="email" type="email">
         <input name="company">
         <input name="password" type="password">
         <input name="card_number" autocomplete="cc-number">
         <input name="cvc">
         <input name="secret_token" type="hidden" value="tok_hidden_123">
         <button type="submit">Send</button>
       </form>`,
    ),
    '/thanks': page(
      'Thanks',
      `<p>Thanks!</p><a id="out" href="https://partner.example/landing">Partner</a>`,
    ),
    // Every kind of sensitive field of issue 11 and 12, found by name, id or autocomplete,
    // and card numbers in innocently named fields.
    '/privacy': page(
      'Checkout',
      `<button id="step2" onclick="history.pushState({}, '', '/privacy/step2#id_token=PUSHED-ID-TOKEN')">Next</button>
       <a id="terms" href="/files/terms.pdf#token=LINK-TOKEN-77" download>Terms</a>
       <form id="checkout" name="checkout" action="/thanks" method="post">
         <input name="email" type="email">
         <input name="company">
         <input name="postal_code">
         <input name="promo_code">
         <input name="cc_number">
         <input name="security_code">
         <input name="pincode">
         <input name="apikey">
         <input name="totp">
         <input name="mfa_code">
         <input name="cc_exp">
         <input name="account_number">
         <input name="sort_code">
         <input name="field_a" id="ssn">
         <input name="field_b" id="userPin">
         <input name="code" autocomplete="one-time-code">
         <input name="when" autocomplete="cc-exp">
         <input name="holder" autocomplete="billing cc-name">
         <input name="digits" autocomplete="cc-csc">
         <input name="choose" autocomplete="new-password">
         <input name="reference">
         <textarea name="message"></textarea>
         <button type="submit">Pay</button>
       </form>
       <form id="callback" name="callback" onsubmit="return false">
         <input name="phone">
         <input name="order_ref">
       </form>`,
    ),
    // A sign-up form sent with GET: its fields land in the next page's address.
    '/signup': page(
      'Sign up',
      `<form action="/welcome" method="get">
         <label>Email <input name="email" type="email"></label>
         <label>Invite token <input name="token"></label>
         <label>Plan <input name="plan"></label>
         <button type="submit">Sign up</button>
       </form>`,
    ),
    '/welcome': page('Welcome', '<p>Welcome aboard</p>'),
    '/files/brochure.pdf': '%PDF-1.4 brochure',
    '/twice': page('Twice', snippet), // the snippet pasted a second time
    // Cuts (500 characters of a value by the tracker, 1,000 of a link's text by the collector)
    // that land inside an emoji.
    '/emoji': page(
      'Emoji',
      `<form id="note" name="note" onsubmit="return false">
         <textarea name="note"></textarea>
         <button type="submit">Send</button>
       </form>
       <a id="long" href="https://partner.example/emoji">${'x'.repeat(999)}\u{1F600} more</a>`,
    ),
    '/consent': `<!doctype html><html><head><title>Consent</title>${snippet.replace(
      '<script>',
      '<script data-wait-for-consent>',
    )}</head><body><p>Cookie banner</p></body></html>`,
  };
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] as string;
    const body = pages[path];
    response.writeHead(body ? 200 : 404, {
      'content-type': path.endsWith('.pdf') ? 'application/pdf' : 'text/html; charset=utf-8',
    });
    response.end(body ?? 'not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.2', () => resolve(server)));
}

let t: TestApp;
let api: ReturnType<typeof client>;
let browser: Browser;
let site: Server;
let siteUrl: string;
let workspace: { uuid: string; tracking_script_id: string; tracking_script_snippet: string };

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
  // Loopback visitors belong to one organisation, as an operator's range file would say.
  await upsertIpRanges(t.database.db, [
    { network: '127.0.0.0/8', domain: 'acme.com', name: 'Acme' },
  ]);
  workspace = (await api('POST', '/v1/workspaces', { url: 'http://127.0.0.2' })).body.data;
  site = await customerSite(workspace.tracking_script_snippet);
  siteUrl = `http://127.0.0.2:${(site.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  site?.close();
  await t?.close();
});

/** Every session of today: the tests add up to more than the API's default page of 15. */
async function sessions() {
  const today = new Date().toISOString().slice(0, 10);
  const path = `/v1/workspaces/${workspace.uuid}/sessions?date=${today}&size=1000`;
  return (await api('GET', path)).body;
}

/** Polls the sessions API until `done` holds for its answer. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 200 && !done(value); i++) {
    await sleep(100);
    value = await read();
  }
  return value;
}

/**
 * A person's look at the page, timed in the page so it ends after the tracker's own timers: a
 * page left within the tracker's quiet time (a redirect) is not a view.
 */
const look = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 1000)));

const typesOf = (body: { data: { events: { event_type: string }[] }[] }) =>
  body.data.flatMap((s) => s.events.map((e) => e.event_type));

describe('the tracker in Chromium', () => {
  it('records a visit as one session with its views and events, and no secrets', async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    await context.route('https://partner.example/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<p>partner</p>' }),
    );
    const page = await context.newPage();
    await page.goto(`${siteUrl}/`);
    await page.waitForFunction(
      () => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded,
    );
    await look(page);
    await page.click('#to-pricing'); // a single-page-app route
    await look(page);
    await page.evaluate(() =>
      (globalThis as unknown as { footfall: (...a: unknown[]) => void }).footfall(
        'track',
        'demo_requested',
        {
          plan: 'pro',
          seats: 12,
        },
      ),
    );
    const download = page.waitForEvent('download');
    await page.click('#brochure');
    await download;
    await page.fill('input[name=newsletter_email]', 'abandoned@acme.com'); // left unsent
    await page.fill('input[name=email]', 'jane@acme.com');
    await page.fill('input[name=company]', 'Acme');
    await page.fill('input[name=password]', 'hunter2-very-secret');
    await page.fill('input[name=card_number]', '4111111111111111');
    await page.fill('input[name=cvc]', '737');
    await Promise.all([page.waitForURL('**/thanks**'), page.click('button[type=submit]')]);
    await page.waitForFunction(
      () => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded,
    );
    await Promise.all([page.waitForURL('https://partner.example/**'), page.click('#out')]);

    const expected = ['pageview', 'custom', 'download', 'form_submit', 'form_abandon', 'click'];
    const body = await until(
      sessions,
      (b) =>
        expected.every((type) => typesOf(b).includes(type)) &&
        typesOf(b).filter((x) => x === 'pageview').length >= 3,
    );
    expect(body.total).toBe(1);
    const [session] = body.data;
    expect(session.views.map((v: { url: string }) => new URL(v.url).pathname)).toEqual([
      '/',
      '/pricing',
      '/thanks',
    ]);
    expect(session.browser).toBe('Chrome');
    const events = session.events as Record<string, unknown>[];
    const one = (type: string) => events.filter((e) => e.event_type === type);
    expect(one('custom')).toEqual([
      expect.objectContaining({
        name: 'demo_requested',
        properties: [
          { name: 'plan', value: 'pro' },
          { name: 'seats', value: '12' },
        ],
      }),
    ]);
    expect(one('download')).toEqual([
      expect.objectContaining({
        url: `${siteUrl}/pricing`,
        properties: [
          { name: 'href', value: `${siteUrl}/files/brochure.pdf` },
          { name: 'text', value: 'Brochure' },
        ],
      }),
    ]);
    const [submit] = one('form_submit');
    expect(submit).toMatchObject({
      form_id: 'contact',
      form_name: 'contact',
      time_spent: expect.any(Number),
    });
    expect(submit?.fields).toEqual([
      { name: 'email', value: 'jane@acme.com' },
      { name: 'company', value: 'Acme' },
    ]);
    const [abandon] = one('form_abandon');
    expect(abandon).toMatchObject({
      form_id: 'newsletter',
      fields: [{ name: 'newsletter_email', value: 'abandoned@acme.com' }],
    });
    // The GET form put its values in the address of /thanks: the sensitive ones are cut.
    expect(session.views[2].url).toBe(`${siteUrl}/thanks?company=Acme`);
    expect(one('click')).toEqual([
      expect.objectContaining({
        url: `${siteUrl}/thanks?company=Acme`,
        properties: [
          { name: 'href', value: 'https://partner.example/landing' },
          { name: 'text', value: 'Partner' },
        ],
      }),
    ]);
    // Views come in order within events too, and each view has a time on page.
    expect(one('pageview')).toHaveLength(3);

    const everything = JSON.stringify(
      await Promise.all([
        t.database.db.selectFrom('events').selectAll().execute(),
        t.database.db.selectFrom('sessions').selectAll().execute(),
      ]),
    );
    for (const secret of ['hunter2-very-secret', '4111111111111111', 'tok_hidden_123']) {
      expect(everything).not.toContain(secret);
    }
    // A three-digit CVC could appear inside any id or time: look for it as a value and a field.
    expect(everything).not.toContain('"737"');
    expect(everything).not.toMatch(/cvc/i);
    await context.close();
  });

  it('keeps no e-mail address or token a GET form leaves in the next address, in views or top pages', async () => {
    // A workspace of its own, so its top pages are this visit's alone.
    const own = (await api('POST', '/v1/workspaces', { url: 'http://127.0.0.2' })).body.data;
    const server = await customerSite(own.tracking_script_snippet);
    const base = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/signup?utm_source=newsletter`);
    await page.waitForFunction(
      () => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded,
    );
    await page.getByLabel('Email').fill('jane@acme.com');
    await page.getByLabel('Invite token').fill('INVITE-TOKEN-31');
    await page.getByLabel('Plan').fill('pro');
    await Promise.all([
      page.waitForURL('**/welcome?**'),
      page.getByRole('button', { name: 'Sign up' }).click(),
    ]);
    // The address the browser shows holds both; what Footfall keeps must not.
    expect(page.url()).toBe(`${base}/welcome?email=jane%40acme.com&token=INVITE-TOKEN-31&plan=pro`);
    await look(page);
    await context.close();

    const today = new Date().toISOString().slice(0, 10);
    const read = async () => {
      const sessions = await api('GET', `/v1/workspaces/${own.uuid}/sessions?date=${today}`);
      const stats = await api(
        'GET',
        `/v1/workspaces/${own.uuid}/stats?date_from=${today}&date_to=${today}`,
      );
      return { sessions: sessions.body, stats: stats.body };
    };
    const stored = await until(read, (b) => (b.stats.data?.top_pages.length ?? 0) >= 2);
    server.close();
    const [session] = stored.sessions.data;
    const expected = [`${base}/signup?utm_source=newsletter`, `${base}/welcome?plan=pro`];
    expect(session.views.map((view: { url: string }) => view.url)).toEqual(expected);
    expect(stored.stats.data.top_pages.map((row: { url: string }) => row.url).sort()).toEqual(
      expected,
    );
    const addresses = JSON.stringify([
      stored.stats.data.top_pages,
      session.views,
      session.events.map((event: { url: string }) => event.url),
    ]);
    for (const secret of ['jane', '%40', '@', 'INVITE-TOKEN-31']) {
      expect(addresses).not.toContain(secret);
    }
  });

  it('stores no sensitive form value, card number or URL fragment anywhere', async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(
      `${siteUrl}/privacy#access_token=FRAGMENT-ACCESS-TOKEN&id_token=FRAGMENT-ID-TOKEN`,
    );
    await page.waitForFunction(
      () => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded,
    );
    const download = page.waitForEvent('download');
    await page.click('#terms');
    await download;
    await page.click('#step2');
    const secrets: Record<string, string> = {
      cc_number: '5555 5555 5555 4444',
      security_code: 'SECURITY-CODE-918',
      pincode: 'PINCODE-5521',
      apikey: 'APIKEY-9X8C7V',
      totp: 'TOTP-481516',
      mfa_code: 'MFA-CODE-2342',
      cc_exp: 'CCEXP-07/38',
      account_number: 'ACCOUNT-31926819',
      sort_code: 'SORT-60-16-13',
      field_a: 'SSN-078-05-1120',
      field_b: 'USERPIN-7788',
      code: 'ONE-TIME-552211',
      when: 'EXPIRY-09/37',
      holder: 'CARDHOLDER-JANE-Q',
      digits: 'CSC-4417',
      choose: 'NEW-PASSWORD-Tr0ub4dor',
      reference: '4242-4242-4242-4242',
      message: 'Please charge 3782 822463 10005 today',
    };
    const kept = {
      email: 'jane@acme.com',
      company: 'Acme',
      postal_code: 'SW1A 1AA',
      promo_code: 'SPRING',
    };
    for (const [name, value] of Object.entries({ ...kept, ...secrets })) {
      await page.fill(`#checkout [name=${name}]`, value);
    }
    // Left unsent: a card number typed into an innocent field of another form.
    await page.fill('#callback [name=phone]', '+44 20 7946 0958');
    await page.fill('#callback [name=order_ref]', '6011 1111 1111 1117');
    await Promise.all([page.waitForURL('**/thanks'), page.click('#checkout button[type=submit]')]);

    const visit = (body: Awaited<ReturnType<typeof sessions>>) =>
      body.data.find((s: { views: { url: string }[] }) =>
        s.views.some((v) => v.url.includes('/privacy')),
      );
    const body = await until(sessions, (b) => {
      const types = visit(b)?.events.map((e: { event_type: string }) => e.event_type) ?? [];
      return (
        ['form_submit', 'form_abandon', 'download'].every((t) => types.includes(t)) &&
        visit(b).views.length === 3
      );
    });
    const session = visit(body);
    expect(session.views.map((v: { url: string }) => v.url)).toEqual([
      `${siteUrl}/privacy`,
      `${siteUrl}/privacy/step2`,
      `${siteUrl}/thanks`,
    ]);
    const events = session.events as Record<string, unknown>[];
    const [submit] = events.filter((e) => e.event_type === 'form_submit');
    expect(submit?.fields).toEqual(Object.entries(kept).map(([name, value]) => ({ name, value })));
    const [abandon] = events.filter((e) => e.event_type === 'form_abandon');
    expect(abandon?.fields).toEqual([{ name: 'phone', value: '+44 20 7946 0958' }]);
    const [terms] = events.filter((e) => e.event_type === 'download');
    expect(terms?.properties).toContainEqual({ name: 'href', value: `${siteUrl}/files/terms.pdf` });

    const dump = await databaseText(t.database.db);
    expect(dump).toContain('jane@acme.com'); // the dump does hold what was kept
    const leaked = [
      ...Object.values(secrets),
      '5555555555554444',
      '378282246310005',
      '6011 1111 1111 1117',
      'FRAGMENT-ACCESS-TOKEN',
      'FRAGMENT-ID-TOKEN',
      'PUSHED-ID-TOKEN',
      'LINK-TOKEN-77',
    ].filter((value) => dump.includes(value));
    expect(leaked).toEqual([]);
    await context.close();
  });

  it('cuts a value and a link text inside an emoji without splitting it, so the visit is kept', async () => {
    const context = await browser.newContext();
    await context.route('https://partner.example/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<p>partner</p>' }),
    );
    const page = await context.newPage();
    await page.goto(`${siteUrl}/emoji`);
    await page.waitForFunction(
      () => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded,
    );
    // Character 500 is the first half of the emoji: cut there, the batch would hold an
    // unpaired surrogate, which the collector refuses whole.
    await page.fill('textarea[name=note]', `${'y'.repeat(499)}\u{1F600} and more`);
    await page.click('#note button[type=submit]');
    await Promise.all([page.waitForURL('https://partner.example/**'), page.click('#long')]);

    const visit = (body: Awaited<ReturnType<typeof sessions>>) =>
      body.data.find((s: { views: { url: string }[] }) =>
        s.views.some((v) => v.url === `${siteUrl}/emoji`),
      );
    const body = await until(sessions, (b) => {
      const types = visit(b)?.events.map((e: { event_type: string }) => e.event_type) ?? [];
      return types.includes('form_submit') && types.includes('click');
    });
    const events = visit(body).events as Record<string, unknown>[];
    const [submit] = events.filter((e) => e.event_type === 'form_submit');
    expect(submit?.fields).toEqual([{ name: 'note', value: 'y'.repeat(499) }]);
    const [click] = events.filter((e) => e.event_type === 'click');
    expect(click?.properties).toContainEqual({ name: 'text', value: 'x'.repeat(999) });
    await context.close();
  });

  it('counts a page once when the snippet is included twice', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${siteUrl}/twice`);
    await page.waitForFunction(
      () => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded,
    );
    const views = (body: Awaited<ReturnType<typeof sessions>>) =>
      body.data
        .flatMap((s: { views: { url: string }[] }) => s.views)
        .filter((v: { url: string }) => v.url.endsWith('/twice'));
    const body = await until(sessions, (b) => views(b).length > 0);
    await sleep(800); // a second copy would have sent its page view by now
    expect(views(await sessions())).toHaveLength(1);
    expect(views(body)).toHaveLength(1);
    await context.close();
  });

  it('in consent mode, stores and sends nothing before consent, and records the visit after', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const collected: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/t/collect')) collected.push(request.url());
    });
    await page.goto(`${siteUrl}/consent`);
    await page.waitForFunction(
      () => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded,
    );
    await sleep(800);
    expect(collected).toEqual([]);
    const stored = await page.evaluate(() =>
      Object.keys((globalThis as unknown as { localStorage: object }).localStorage),
    );
    expect(stored).toEqual([]);
    await page.evaluate(() =>
      (globalThis as unknown as { footfall: (...a: unknown[]) => void }).footfall('consent', true),
    );
    const consentViews = (body: Awaited<ReturnType<typeof sessions>>) =>
      body.data
        .flatMap((s: { views: { url: string }[] }) => s.views)
        .filter((v: { url: string }) => v.url.endsWith('/consent'));
    const body = await until(sessions, (b) => consentViews(b).length > 0);
    expect(consentViews(body)).toHaveLength(1);
    expect(
      await page.evaluate(() =>
        Object.keys((globalThis as unknown as { localStorage: object }).localStorage).sort(),
      ),
    ).toEqual(['ff_q', 'ff_s', 'ff_v']);
    await context.close();
  });

  it('records no clicks on the next page load once click tracking is off', async () => {
    const before = typesOf(await sessions());
    const clicksBefore = before.filter((type) => type === 'click').length;
    const viewsBefore = before.filter((type) => type === 'pageview').length;
    await api('PATCH', `/v1/workspaces/${workspace.uuid}/tracker-features`, {
      click_tracking: false,
    });

    const context = await browser.newContext();
    await context.route('https://partner.example/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<p>partner</p>' }),
    );
    const page = await context.newPage();
    await page.goto(`${siteUrl}/thanks`);
    await page.waitForFunction(
      () => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded,
    );
    await Promise.all([page.waitForURL('https://partner.example/**'), page.click('#out')]);
    const after = await until(
      sessions,
      (b) => typesOf(b).filter((x) => x === 'pageview').length > viewsBefore,
    );
    expect(typesOf(after).filter((type) => type === 'pageview').length).toBe(viewsBefore + 1);
    await sleep(500); // a click, had one been sent, would have arrived with the page view
    const clicksAfter = typesOf(await sessions()).filter((type) => type === 'click').length;
    expect(clicksAfter).toBe(clicksBefore);
    await context.close();
  });

  it('with Global Privacy Control honoured, stores and sends nothing from a GPC browser, consent or not', async () => {
    await api('PATCH', `/v1/workspaces/${workspace.uuid}/privacy`, { honor_gpc: true });
    const homeViews = (body: Awaited<ReturnType<typeof sessions>>) =>
      body.data
        .flatMap((s: { views: { url: string }[] }) => s.views)
        .filter((v: { url: string }) => v.url === `${siteUrl}/`).length;
    const before = homeViews(await sessions());

    const context = await browser.newContext();
    await context.addInitScript(() => {
      const navigator = (globalThis as unknown as { navigator: object }).navigator;
      Object.defineProperty(navigator, 'globalPrivacyControl', { get: () => true });
    });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(t.url)) requests.push(new URL(request.url()).pathname);
    });
    await page.goto(`${siteUrl}/`);
    await page.waitForFunction(
      () => (globalThis as { footfall?: { loaded?: boolean } }).footfall?.loaded,
    );
    const organisation = await page.evaluate(() => {
      const footfall = (globalThis as unknown as { footfall: (...a: unknown[]) => unknown })
        .footfall;
      footfall('consent', true);
      footfall('track', 'clicked_banner');
      return footfall('spotter');
    });
    expect(organisation).toBeNull();
    await page.evaluate(() =>
      (globalThis as unknown as { dispatchEvent(event: Event): void }).dispatchEvent(
        new Event('pagehide'),
      ),
    );
    await sleep(800);
    expect(requests.filter((path) => !path.endsWith('.js'))).toEqual([]);
    expect(
      await page.evaluate(() =>
        Object.keys((globalThis as unknown as { localStorage: object }).localStorage),
      ),
    ).toEqual([]);
    await context.close();

    // Without the signal the same page is recorded, so the silence above was GPC's doing.
    const plain = await browser.newContext();
    await (await plain.newPage()).goto(`${siteUrl}/`);
    const after = await until(sessions, (b) => homeViews(b) > before);
    expect(homeViews(after)).toBe(before + 1);
    await plain.close();
  });
});
