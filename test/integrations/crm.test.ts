import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/accounts/store.js';
import { type Person, person } from '../accounts/helpers.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { visitYesterday } from '../helpers/collect.js';
import { startHubSpotStandIn } from '../helpers/crm/hubspot.js';
import { startPipedriveStandIn } from '../helpers/crm/pipedrive.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { until } from '../helpers/wait.js';

// Contract §18's CRM sync against local servers speaking HubSpot's and Pipedrive's
// documented APIs: what the CRM ends up holding (one company per domain, current
// properties, a note per ended session, linked contacts), what is never sent, and how a
// 429, a revoked token and a deleted workspace are met.

const SITE = 'https://site.example';
type HubSpot = Awaited<ReturnType<typeof startHubSpotStandIn>>;
type Pipedrive = Awaited<ReturnType<typeof startPipedriveStandIn>>;

let t: TestApp;
let hubspot: HubSpot;
let pipedrive: Pipedrive;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let admin: Person;
let member: Person;
let ws: { uuid: string; tracking_script_id: string };
const base = () => `/v1/workspaces/${ws.uuid}`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const visitFrom = (space: { tracking_script_id: string }, email: string, paths: string[]) =>
  visitYesterday(t.url, space.tracking_script_id, SITE, email, paths);

async function integration(name: string, who: Person = admin, workspace = ws) {
  const listed = await who.api('GET', `/v1/workspaces/${workspace.uuid}/integrations`);
  expect(listed.status).toBe(200);
  return (listed.body.data as { name: string }[]).find((i) => i.name === name) as Record<
    string,
    // biome-ignore lint/suspicious/noExplicitAny: an API answer read field by field
    any
  >;
}

async function organisationByDomain(domain: string) {
  const row = await t.database.db
    .selectFrom('organisations')
    .select(['id', 'score', 'status'])
    .where('workspace_id', '=', ws.uuid)
    .where('domain', '=', domain)
    .executeTakeFirst();
  return row;
}

beforeAll(async () => {
  [hubspot, pipedrive, smtp] = await Promise.all([
    startHubSpotStandIn(),
    startPipedriveStandIn(),
    startSmtpServer(),
  ]);
  t = await startTestApp({
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    HUBSPOT_API_URL: hubspot.url,
    PIPEDRIVE_API_URL: pipedrive.url,
    SMTP_URL: smtp.url,
    PUBLIC_URL: 'https://footfall.example',
  });
  admin = await person(t, 'admin@crm.example');
  member = await person(t, 'member@crm.example');
  ws = (await admin.api('POST', '/v1/workspaces', { url: SITE })).body.data;
  await addMember(t.database.db, ws.uuid, member.id, 'member');
});
afterAll(async () => {
  await t.close();
  await Promise.all([hubspot.close(), pipedrive.close(), smtp.close()]);
});

describe('CRM connections', () => {
  it('checks a token with one call, keeps it encrypted and never shows it, for admins only', async () => {
    expect(await integration('hubspot')).toEqual({
      name: 'hubspot',
      enabled: false,
      status: 'not_connected',
      connected_at: null,
      last_synced_at: null,
      synced: 0,
      failed: 0,
      last_error: null,
      settings: { min_score: null, segment_uuid: null },
      backfill: null,
    });
    const before = hubspot.calls.length;
    const wrong = await admin.api('PUT', `${base()}/integrations/hubspot`, { token: 'pat-wrong' });
    expect(wrong.status).toBe(422);
    expect(Object.keys(wrong.body.errors)).toEqual(['token']);
    expect(wrong.body.errors.token[0]).toMatch(/HubSpot refused the token \(401\)/);
    expect(hubspot.calls.length).toBe(before + 1);
    expect((await integration('hubspot')).status).toBe('not_connected');

    for (const answer of [
      await member.api('GET', `${base()}/integrations`),
      await member.api('PUT', `${base()}/integrations/hubspot`, { token: hubspot.token }),
      await member.api('POST', `${base()}/integrations/hubspot/sync`),
      await member.api('DELETE', `${base()}/integrations/hubspot`),
    ]) {
      expect(answer.status).toBe(403);
    }
    const stranger = await person(t, 'stranger@crm.example');
    expect((await stranger.api('GET', `${base()}/integrations`)).status).toBe(404);
    expect(
      (await admin.api('PUT', `${base()}/integrations/salesforce`, { token: 'x' })).status,
    ).toBe(404);
    const early = await admin.api('POST', `${base()}/integrations/hubspot/sync`);
    expect(early.status).toBe(422);
    const noToken = await admin.api('PUT', `${base()}/integrations/hubspot`, { enabled: true });
    expect(noToken.status).toBe(422);
    expect(Object.keys(noToken.body.errors)).toEqual(['token']);
    const badSegment = await admin.api('PUT', `${base()}/integrations/hubspot`, {
      token: hubspot.token,
      settings: { segment_uuid: randomUUID() },
    });
    expect(badSegment.status).toBe(422);
    expect(Object.keys(badSegment.body.errors)).toEqual(['settings.segment_uuid']);

    const connected = await admin.api('PUT', `${base()}/integrations/hubspot`, {
      token: hubspot.token,
      settings: { min_score: 20 },
    });
    expect(connected.status).toBe(200);
    expect(connected.body.data).toMatchObject({
      name: 'hubspot',
      enabled: true,
      status: 'connected',
      settings: { min_score: 20, segment_uuid: null },
    });
    expect(JSON.stringify(connected.body)).not.toContain(hubspot.token);
    expect(JSON.stringify((await admin.api('GET', `${base()}/integrations`)).body)).not.toContain(
      hubspot.token,
    );
    const stored = await t.database.db
      .selectFrom('crm_connections')
      .select('token_encrypted')
      .where('workspace_id', '=', ws.uuid)
      .executeTakeFirstOrThrow();
    expect(stored.token_encrypted.toString('latin1')).not.toContain(hubspot.token);
  });

  it('syncs qualifying leads only: one company per domain with the footfall properties, its contacts linked', async () => {
    // hidden by the excluded domains; below the minimum score; a lead that qualifies.
    await admin.api('PUT', `${base()}/excluded-domains`, { domains: ['crm-hidden.example'] });
    await admin.api('PUT', `${base()}/scoring`, {
      rules: [],
      key_pages: [{ url_contains: '/pricing', points: 50 }],
    });
    await visitFrom(ws, 'ann@crm-lead.example', ['/pricing', '/features']);
    await visitFrom(ws, 'bob@crm-cold.example', ['/blog']);
    await visitFrom(ws, 'cid@crm-hidden.example', ['/pricing']);
    await until(async () => (await organisationByDomain('crm-lead.example'))?.score === 50);
    const hidden = await organisationByDomain('crm-hidden.example');
    expect(hidden?.status).toBe('hidden');

    const sync = await admin.api('POST', `${base()}/integrations/hubspot/sync`);
    expect(sync.status).toBe(202);
    expect(sync.body.data.backfill).toMatchObject({
      total: expect.any(Number),
      done: expect.any(Number),
    });
    await until(async () => {
      const shown = await integration('hubspot');
      return shown.status === 'connected' && shown.synced === 1;
    });
    const shown = await integration('hubspot');
    expect(shown.backfill.done).toBe(shown.backfill.total);
    expect(shown.last_synced_at).toEqual(expect.any(String));

    const byDomain = hubspot.companiesByDomain();
    expect([...byDomain.keys()]).toEqual(['crm-lead.example']);
    const [company] = byDomain.get('crm-lead.example') ?? [];
    const lead = await organisationByDomain('crm-lead.example');
    expect(company?.properties).toMatchObject({
      domain: 'crm-lead.example',
      footfall_score: '50',
      footfall_status: 'lead',
      footfall_sessions: '1',
      footfall_url: `https://footfall.example/w/${ws.uuid}/organisations/${lead?.id}`,
      footfall_last_seen: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // The properties were made once, in the company group.
    expect(hubspot.properties.get('companies')?.get('footfall_score')).toMatchObject({
      type: 'number',
      groupName: 'companyinformation',
    });
    // Ann became a contact linked to it.
    await until(() => hubspot.contactsOf(company?.id ?? '').length === 1);
    expect(hubspot.contactsOf(company?.id ?? '')[0]?.properties.email).toBe('ann@crm-lead.example');
    // Nothing was asked or sent about the others.
    const sent = JSON.stringify(hubspot.calls.map((call) => call.body));
    expect(sent).not.toContain('crm-hidden.example');
    expect(sent).not.toContain('crm-cold.example');
    expect(hubspot.overLimit).toBe(0);
  });

  it('never creates a company twice: two syncs at once, and again', async () => {
    const creates = () =>
      hubspot.calls.filter((c) => c.path === '/crm/v3/objects/companies/batch/create').length;
    const before = creates();
    const [one, two] = await Promise.all([
      admin.api('POST', `${base()}/integrations/hubspot/sync`),
      admin.api('POST', `${base()}/integrations/hubspot/sync`),
    ]);
    expect([one.status, two.status]).toEqual([202, 202]);
    await until(async () => (await integration('hubspot')).status === 'connected');
    await admin.api('POST', `${base()}/integrations/hubspot/sync`);
    await until(async () => (await integration('hubspot')).status === 'connected');
    expect(creates()).toBe(before);
    for (const [domain, companies] of hubspot.companiesByDomain()) {
      expect(companies, domain).toHaveLength(1);
    }
  });

  it('keeps the properties current after a score change, and adds a note per ended session', async () => {
    const [company] = hubspot.companiesByDomain().get('crm-lead.example') ?? [];
    const notesBefore = hubspot.notesOf(company?.id ?? '').length;
    await admin.api('PUT', `${base()}/scoring`, {
      rules: [],
      key_pages: [{ url_contains: '/pricing', points: 70 }],
    });
    await until(() => company?.properties.footfall_score === '70');

    await visitFrom(ws, 'ann@crm-lead.example', ['/pricing', '/contact']);
    await until(() => hubspot.notesOf(company?.id ?? '').length === notesBefore + 1);
    const note = hubspot.notesOf(company?.id ?? '').at(-1);
    expect(note?.properties.hs_note_body).toContain(`${SITE}/pricing`);
    expect(note?.properties.hs_note_body).toContain(`${SITE}/contact`);
    await until(() => company?.properties.footfall_sessions === '2');
    await pause(1500);
    // One note for the one session; still one company.
    expect(hubspot.notesOf(company?.id ?? '')).toHaveLength(notesBefore + 1);
    expect(hubspot.companiesByDomain().get('crm-lead.example')).toHaveLength(1);
  });

  it('waits out a 429 for its Retry-After and loses nothing', async () => {
    await visitFrom(ws, 'dan@crm-second.example', ['/pricing']);
    hubspot.throttleNext(1, 2);
    const throttledAt = Date.now();
    await until(() => hubspot.companiesByDomain().has('crm-second.example'));
    const refused = hubspot.calls.find((c) => c.status === 429 && c.at >= throttledAt);
    expect(refused).toBeDefined();
    const next = hubspot.calls.find((c) => c.at > (refused?.at ?? 0) && c.status !== 429);
    expect((next?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(1900);
    await until(async () => (await integration('hubspot')).last_error === null);
    expect(hubspot.companiesByDomain().get('crm-second.example')).toHaveLength(1);
  });

  it('marks the connection failed when the token is revoked, tells the admins, and sends nothing more', async () => {
    hubspot.revoke();
    await visitFrom(ws, 'eve@crm-third.example', ['/pricing']);
    await until(async () => (await integration('hubspot')).status === 'failed');
    const shown = await integration('hubspot');
    expect(shown.last_error).toMatch(/HubSpot refused the token \(401\)/);
    await until(() => smtp.messages.some((m) => m.subject?.startsWith('HubSpot sync stopped')));
    const mail = smtp.messages.find((m) => m.subject?.startsWith('HubSpot sync stopped'));
    expect(mail?.to).toMatchObject({ text: 'admin@crm.example' });
    expect(mail?.text).toContain('refused the token');
    const calls = hubspot.calls.length;
    await visitFrom(ws, 'fay@crm-third.example', ['/pricing']);
    await pause(3000);
    expect(hubspot.calls.length).toBe(calls);
    // What waits is kept, not failed.
    const waiting = await t.database.db
      .selectFrom('crm_deliveries')
      .select(['status'])
      .where('workspace_id', '=', ws.uuid)
      .where('integration', '=', 'hubspot')
      .execute();
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((row) => row.status === 'pending')).toBe(true);
    // Disconnecting drops the token and what waited.
    expect((await admin.api('DELETE', `${base()}/integrations/hubspot`)).status).toBe(200);
    expect((await integration('hubspot')).status).toBe('not_connected');
    expect((await admin.api('DELETE', `${base()}/integrations/hubspot`)).status).toBe(404);
  });
});

describe('Pipedrive', () => {
  it('keeps one organization per domain in a custom field, with persons and notes', async () => {
    const owner = await person(t, 'owner@pipedrive.example');
    const space = (await owner.api('POST', '/v1/workspaces', { url: SITE })).body.data;
    const path = `/v1/workspaces/${space.uuid}/integrations/pipedrive`;
    expect((await owner.api('PUT', path, { token: pipedrive.token })).status).toBe(200);
    await visitFrom(space, 'gus@pd-lead.example', ['/pricing', '/team']);
    await visitFrom(space, 'hal@pd-lead.example', ['/']);
    await owner.api('POST', `${path}/sync`);
    await until(async () => {
      const shown = await integration('pipedrive', owner, space);
      return shown.status === 'connected' && shown.synced === 1;
    });
    const domainField = pipedrive.organizationFields.find((f) => f.name === 'Domain');
    expect(domainField).toBeDefined();
    const orgs = pipedrive.organizationsByField(domainField?.key ?? '').get('pd-lead.example');
    expect(orgs).toHaveLength(1);
    const org = orgs?.[0] as { id: number };
    await until(() => pipedrive.personsOf(org.id).length === 2);
    await until(() => pipedrive.notesOf(org.id).length === 2);
    expect(pipedrive.notesOf(org.id).some((n) => String(n.content).includes(`${SITE}/team`))).toBe(
      true,
    );
    // Again: nothing new created.
    const posts = () =>
      pipedrive.calls.filter((c) => c.method === 'POST' && c.path === '/v1/organizations').length;
    const before = posts();
    await owner.api('POST', `${path}/sync`);
    await until(async () => (await integration('pipedrive', owner, space)).status === 'connected');
    expect(posts()).toBe(before);
    expect(pipedrive.overLimit).toBe(0);
  });

  it('stops calling for a workspace deleted mid-sync', async () => {
    const owner = await person(t, 'deleter@pipedrive.example');
    const space = (await owner.api('POST', '/v1/workspaces', { url: SITE })).body.data;
    const path = `/v1/workspaces/${space.uuid}/integrations/pipedrive`;
    expect((await owner.api('PUT', path, { token: pipedrive.token })).status).toBe(200);
    for (let i = 0; i < 30; i++) await visitFrom(space, `x@pd-many-${i}.example`, ['/']);
    await until(async () => {
      const { count } = await t.database.db
        .selectFrom('organisations')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('workspace_id', '=', space.uuid)
        .executeTakeFirstOrThrow();
      return Number(count) === 30;
    });
    const started = pipedrive.calls.length;
    expect((await owner.api('POST', `${path}/sync`)).status).toBe(202);
    await until(() => pipedrive.calls.length >= started + 5);
    expect((await owner.api('DELETE', `/v1/workspaces/${space.uuid}`)).status).toBe(204);
    // What was in flight may finish; then nothing more.
    await pause(4000);
    const settled = pipedrive.calls.length;
    await pause(3000);
    expect(pipedrive.calls.length).toBe(settled);
    const domainField = pipedrive.organizationFields.find((f) => f.name === 'Domain');
    const made = [...pipedrive.organizationsByField(domainField?.key ?? '').keys()].filter(
      (domain) => domain.startsWith('pd-many-'),
    ).length;
    expect(made).toBeLessThan(30);
    const left = await t.database.db
      .selectFrom('crm_deliveries')
      .select('status')
      .where('workspace_id', '=', space.uuid)
      .where('status', '=', 'pending')
      .execute();
    expect(left).toEqual([]);
  });
});

describe('CRM addresses', () => {
  it('refuses a private CRM address unless ALLOW_PRIVATE_WEBHOOKS is set', async () => {
    const guarded = await startTestApp({ HUBSPOT_API_URL: hubspot.url });
    try {
      const owner = await person(guarded, 'owner@crm-guard.example');
      const space = (await owner.api('POST', '/v1/workspaces', { url: SITE })).body.data;
      const answer = await owner.api('PUT', `/v1/workspaces/${space.uuid}/integrations/hubspot`, {
        token: hubspot.token,
      });
      expect(answer.status).toBe(422);
      expect(answer.body.errors.token[0]).toMatch(/could not be reached/);
    } finally {
      await guarded.close();
    }
  });
});
