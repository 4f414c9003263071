import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/accounts/store.js';
import { latestPeriod } from '../../src/notifications/digest-period.js';
import { sendDueDigests } from '../../src/notifications/digests.js';
import { type Person, person } from '../accounts/helpers.js';
import type { TestApp } from '../helpers/app.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';
import { startWebhookApp } from '../helpers/webhooks.js';

// Contract §17's routing over a real SMTP server: alerts to an organisation's owner, none
// about hidden organisations, and a member's "My accounts" digest in score order.

const PUBLIC_URL = 'https://footfall.example';
const SITE = 'https://site.example';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let admin: Person;
let seller: Person;
let ws: { uuid: string; tracking_script_id: string };
const orgs: Record<string, string> = {};

const base = () => `/v1/workspaces/${ws.uuid}`;
/** Who a received message was addressed to, as its To header reads. */
const toOf = (mail: Awaited<ReturnType<typeof startSmtpServer>>['messages'][number] | undefined) =>
  [mail?.to ?? []]
    .flat()
    .map((address) => address.text)
    .join(', ');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A session of a new visitor from `domain` at `ts`, on these pages. */
async function session(domain: string, paths: string[], ts = Date.now()): Promise<void> {
  const events = [
    identify(`${SITE}/`, `bob@${domain}`, ts),
    ...paths.map((path, i) => pageview(`${SITE}${path}`, ts + (i + 1) * 1000)),
  ];
  const answer = await collector(t.url)(
    visit(ws.tracking_script_id, events, { visitor: randomUUID() }),
  );
  expect(answer.status).toBe(202);
}

async function organisationOf(domain: string): Promise<string> {
  let id: string | undefined;
  await until(async () => {
    const all = (await admin.api('GET', `${base()}/organisations?size=100&include_all=true`)).body
      .data as { uuid: string; website: string }[];
    id = all.find((o) => o.website === `https://${domain}`)?.uuid;
    return id !== undefined;
  });
  return id as string;
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startWebhookApp({
    SMTP_URL: smtp.url,
    SMTP_FROM: 'alerts@footfall.example',
    PUBLIC_URL,
  });
  admin = await person(t, 'admin@routing.example');
  seller = await person(t, 'seller@routing.example');
  ws = (await admin.api('POST', '/v1/workspaces', { url: SITE })).body.data;
  await addMember(t.database.db, ws.uuid, seller.id, 'member');
  // Yesterday's (or the day before's) digest period, UTC: the sessions the digest is about.
  const period = latestPeriod('digest.daily', 'UTC', new Date());
  const at = (hour: number) => period.start.getTime() + hour * 3_600_000;
  await session('owned-high.example', ['/pricing', '/demo'], at(1));
  await session('owned-high.example', ['/pricing'], at(2));
  await session('owned-low.example', ['/blog'], at(3));
  await session('unowned.example', ['/pricing'], at(4));
  await session('owned-hidden.example', ['/pricing'], at(5));
  for (const domain of [
    'owned-high.example',
    'owned-low.example',
    'unowned.example',
    'owned-hidden.example',
  ]) {
    orgs[domain] = await organisationOf(domain);
  }
  for (const domain of ['owned-high.example', 'owned-low.example', 'owned-hidden.example']) {
    const set = await seller.api('PATCH', `${base()}/organisations/${orgs[domain]}`, {
      owner_uuid: seller.id,
    });
    expect(set.status).toBe(200);
  }
  await seller.api('PATCH', `${base()}/organisations/${orgs['owned-hidden.example']}`, {
    status: 'hidden',
  });
  // The visits above are past before any rule exists: their events fanned out (with no
  // rule to match), so an alert below can only come from the visits made after the rule.
  await until(async () => {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox_events`.execute(
      t.database.db,
    );
    return rows[0]?.n === 0;
  });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

describe('alerts to owners', () => {
  it('mails the owner only, nobody about an unowned or hidden organisation unless `to` is a fallback', async () => {
    const rule = async (name: string, channel: Record<string, unknown>) => {
      const created = await admin.api('POST', `${base()}/notifications`, {
        name,
        trigger: 'organisation.visited',
        channel,
      });
      expect(created.status).toBe(201);
      return created.body.data;
    };
    const owners = await rule('To owners', { type: 'email', to_owner: true });
    expect(owners.channel).toEqual({ type: 'email', to: [], to_owner: true });
    expect(
      (
        await admin.api('POST', `${base()}/notifications`, {
          name: 'Nobody',
          trigger: 'organisation.visited',
          channel: { type: 'email' },
        })
      ).status,
    ).toBe(422);

    // The collector learns within 5 s that the workspace now has alerts (its cache).
    await pause(5500);
    await session('owned-low.example', ['/']);
    await session('unowned.example', ['/']);
    await session('owned-hidden.example', ['/pricing']);
    await until(() => smtp.messages.length >= 1);
    await pause(2000);
    expect(smtp.messages.map((mail) => mail.to)).toEqual([
      expect.objectContaining({ text: 'seller@routing.example' }),
    ]);
    expect(smtp.messages[0]?.subject).toBe('owned-low.example is visiting site.example');
    // The owner leaves the rule by the mail's link; the rule stays on for the others.
    const unsubscribe = /Unsubscribe: (\S+)/.exec(smtp.messages[0]?.text ?? '')?.[1] ?? '';
    const left = await fetch(unsubscribe.replace(PUBLIC_URL, t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(left.status).toBe(200);
    const after = (await admin.api('GET', `${base()}/notifications/${owners.uuid}`)).body.data;
    expect(after.enabled).toBe(true);

    // With fallback addresses, an unowned organisation's alert goes to them.
    await rule('To owners, else sales', {
      type: 'email',
      to_owner: true,
      to: ['sales@routing.example'],
    });
    smtp.messages.length = 0;
    await session('unowned.example', ['/again']);
    await until(() => smtp.messages.length >= 1);
    await pause(2000);
    expect(smtp.messages.map((mail) => [toOf(mail), mail.subject])).toEqual([
      ['sales@routing.example', 'unowned.example is visiting site.example'],
    ]);
  });
});

describe('"My accounts" digest', () => {
  it('sends each member the organisations they own that visited, highest score first, with what they read', async () => {
    const enabled = await seller.api('PUT', `${base()}/my-digest`, { enabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toEqual({
      enabled: true,
      timezone: 'UTC',
      rule_uuid: expect.any(String),
    });
    expect((await seller.api('GET', `${base()}/my-digest`)).body.data).toEqual(enabled.body.data);
    expect((await admin.api('GET', `${base()}/my-digest`)).body.data.enabled).toBe(false);
    const rule = (await admin.api('GET', `${base()}/notifications/${enabled.body.data.rule_uuid}`))
      .body.data;
    expect(rule).toMatchObject({
      name: 'My accounts',
      trigger: 'digest.daily',
      filter: { owner: seller.id },
      channel: { type: 'email', to: ['seller@routing.example'] },
    });
    // Scores from the default rules: owned-high viewed /pricing and /demo (and came twice).
    await until(async () => {
      const high = (await admin.api('GET', `${base()}/organisations/${orgs['owned-high.example']}`))
        .body.data;
      return high.score >= 50;
    });
    // Made before the period's 07:00, so this period's digest is due now.
    await t.database.db
      .updateTable('notification_rules')
      .set({ created_at: new Date(Date.now() - 3 * 86_400_000) } as never)
      .where('id', '=', enabled.body.data.rule_uuid)
      .execute();
    smtp.messages.length = 0;
    // The server's own digest job may take the period first: either way, one digest.
    await sendDueDigests({ db: t.database.db, base: PUBLIC_URL });
    await until(() => smtp.messages.length >= 1);
    await pause(1500);
    expect(smtp.messages).toHaveLength(1);
    const [mail] = smtp.messages;
    expect(toOf(mail)).toBe('seller@routing.example');
    expect(mail?.subject).toMatch(
      /^Daily digest of my accounts: 2 organisations visited site\.example/,
    );
    const listed = (mail?.text ?? '').split('\n').filter((line) => /^\d+\. /.test(line));
    // The hidden one and the one owned by nobody are not in it; highest score first.
    expect(listed).toEqual(['1. owned-high.example', '2. owned-low.example']);
    expect(mail?.text).toContain(`Read: ${SITE}/pricing, ${SITE}/demo`);
    expect(mail?.text).toContain(`Read: ${SITE}/blog`);
    expect(
      (await seller.api('PUT', `${base()}/my-digest`, { enabled: false })).body.data.enabled,
    ).toBe(false);
  });
});
