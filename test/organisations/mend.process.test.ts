import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { killStragglers, runFootfall } from '../helpers/process.js';
import { until } from '../helpers/wait.js';

const CHINANET = '1.48.0.10'; // AS4134, a carrier
const KLEEMANN = '185.119.8.10'; // AS12546, a company network in one place
const SIEMENS = '132.186.88.10'; // AS400242, named by its brand: siemens.com
const APPLE = '17.253.144.10'; // AS714, on the enterprise allow-list: apple.com
const SITE = 'https://shop.example';

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
let script: string;
let env: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  api = client(t.url, (await t.operator()).token);
  const workspace = (await api('POST', '/v1/workspaces', { url: SITE })).body.data;
  ws = workspace.uuid;
  script = workspace.tracking_script_id;
  env = { DATABASE_URL: t.deps.config.databaseUrl ?? '', DATA_DIR: t.deps.config.dataDir };
});
afterAll(async () => {
  killStragglers();
  await t.close();
});

const send = (ip: string, events: Record<string, unknown>[], visitor = randomUUID()) =>
  collector(t.url)(visit(script, events, { visitor }), { 'x-forwarded-for': ip });
const organisations = async () =>
  Object.fromEntries(
    (
      await t.database.db
        .selectFrom('organisations')
        .select(['domain', 'id'])
        .where('workspace_id', '=', ws)
        .execute()
    ).map((o) => [o.domain, o.id]),
  );
const sessions = () =>
  t.database.db
    .selectFrom('sessions')
    .select(['id', 'organisation_id'])
    .where('workspace_id', '=', ws)
    .orderBy('id')
    .execute();
const overrides = async (lines: string) => {
  const file = path.join(t.deps.config.dataDir, `kinds-${randomUUID()}.csv`);
  await writeFile(file, `asn,kind\n${lines}`);
  expect((await runFootfall(['import', 'network-kinds', file], env)).code).toBe(0);
};
const mend = async (...flags: string[]) => {
  const run = await runFootfall(['identification', 'mend', ...flags], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

describe('footfall identification mend', () => {
  it('takes network-only attributions away, removes what is left with nothing, and its dry run says exactly that', async () => {
    // Yesterday's rule took a carrier for a company: the operator once said so.
    await overrides('AS4134,business\n');
    await until(async () => {
      await send(CHINANET, [pageview(`${SITE}/`, Date.now())]);
      return 'as4134' in (await organisations());
    });
    const now = Date.now();
    await send(CHINANET, [pageview(`${SITE}/pricing`, now)]);
    await send(KLEEMANN, [pageview(`${SITE}/`, now)]);
    await send(APPLE, [pageview(`${SITE}/`, now)]);
    // A visitor on the carrier's network who then says who they are: an e-mail organisation.
    const jane = randomUUID();
    await send(CHINANET, [pageview(`${SITE}/demo`, now - 3_600_000)], jane);
    await send(CHINANET, [identify(`${SITE}/demo`, 'jane@initech.com', now)], jane);
    // One who leaves a free-mail address in a form: a contact, on the carrier's organisation.
    await send(CHINANET, [
      {
        type: 'form_submit',
        ts: now,
        url: `${SITE}/contact`,
        form_id: 'contact',
        fields: [{ name: 'email', value: 'someone@gmail.com' }],
      },
    ]);
    const before = await organisations();
    expect(Object.keys(before).sort()).toEqual(['apple.com', 'as12546', 'as4134', 'initech.com']);
    const carrierSessions = (await sessions())
      .filter((s) => s.organisation_id === before.as4134)
      .map((s) => s.id)
      .sort();
    expect(carrierSessions.length).toBeGreaterThanOrEqual(3);

    // Now the carrier is judged by its name again.
    await overrides('');
    const dry = await mend('--dry-run');
    expect(dry).toEqual({
      dry_run: true,
      organisations: [
        {
          workspace: ws,
          uuid: before.as4134,
          domain: 'as4134',
          name: 'Chinanet',
          judged: { kind: 'isp', rule: 'name', strictness: 'balanced' },
          sessions: carrierSessions,
          removed: true,
        },
      ],
      moved: [],
      sessions_detached: carrierSessions.length,
      organisations_removed: 1,
    });
    // A dry run changes nothing.
    expect(await organisations()).toEqual(before);
    const stored = await sessions();
    expect(stored.filter((s) => s.organisation_id === before.as4134)).toHaveLength(
      carrierSessions.length,
    );

    const done = await mend();
    expect(done).toEqual({ ...dry, dry_run: false });
    // The sessions stay, unattributed; the organisation is gone; the others are untouched.
    const after = await sessions();
    expect(after.map((s) => s.id)).toEqual(stored.map((s) => s.id));
    for (const session of after) {
      const was = stored.find((s) => s.id === session.id)?.organisation_id;
      expect(session.organisation_id).toBe(was === before.as4134 ? null : was);
    }
    expect(Object.keys(await organisations()).sort()).toEqual([
      'apple.com',
      'as12546',
      'initech.com',
    ]);
    expect(after.filter((s) => s.organisation_id === before['initech.com'])).toHaveLength(2);
    expect((await api('GET', `/v1/workspaces/${ws}/organisations/${before.as4134}`)).status).toBe(
      404,
    );
    const contact = await t.database.db
      .selectFrom('contacts')
      .select('organisation_id')
      .where('email', '=', 'someone@gmail.com')
      .executeTakeFirstOrThrow();
    expect(contact.organisation_id).toBeNull();

    // Nothing is left to mend.
    expect(await mend()).toEqual({
      dry_run: false,
      organisations: [],
      moved: [],
      sessions_detached: 0,
      organisations_removed: 0,
    });
  });

  it('moves network organisations of an older version to the enterprise domain their network now names', async () => {
    // What an older version stored: enterprises on their own networks keyed by AS number.
    const legacy = async (asn: number, name: string) => {
      const visitor = randomUUID();
      await send('192.0.2.1', [pageview(`${SITE}/legacy`, Date.now())], visitor);
      const organisation = await t.database.db
        .insertInto('organisations')
        .values({
          workspace_id: ws,
          id: randomUUID(),
          domain: `as${asn}`,
          name,
          identification: JSON.stringify({ method: 'network_owner', evidence: { asn } }),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await t.database.db
        .updateTable('sessions')
        .set({ organisation_id: organisation.id })
        .where('workspace_id', '=', ws)
        .where('visitor_id', '=', visitor)
        .execute();
      return organisation.id;
    };
    const oldApple = await legacy(714, 'Apple Inc.');
    const oldAccenture = await legacy(14952, 'Accenture LLP');
    const apple = (await organisations())['apple.com'];
    expect(apple).toBeDefined();

    const dry = await mend('--dry-run');
    expect(dry.moved).toEqual([
      {
        workspace: ws,
        uuid: oldAccenture,
        domain: 'as14952',
        to: { domain: 'accenture.com', name: 'Accenture', uuid: oldAccenture },
        sessions: 1,
      },
      {
        workspace: ws,
        uuid: oldApple,
        domain: 'as714',
        to: { domain: 'apple.com', name: 'Apple', uuid: apple },
        sessions: 1,
      },
    ]);
    expect((await organisations()).as714).toBe(oldApple);

    expect((await mend()).moved).toEqual(dry.moved);
    const after = await organisations();
    // Accenture had no organisation of its domain: it is renamed, its id kept.
    expect(after['accenture.com']).toBe(oldAccenture);
    // Apple's older organisation joins the one of apple.com and, left with nothing, goes.
    expect(after.as714).toBeUndefined();
    expect((await sessions()).filter((s) => s.organisation_id === apple).length).toBeGreaterThan(1);
    expect((await mend()).moved).toEqual([]);
  });

  it('mends an enterprise named by its domain, and keeps the sessions of who said by e-mail they are with it', async () => {
    const now = Date.now();
    await send(SIEMENS, [pageview(`${SITE}/`, now)]);
    const max = randomUUID();
    await send(SIEMENS, [pageview(`${SITE}/pricing`, now)], max);
    await send(SIEMENS, [identify(`${SITE}/pricing`, 'max@siemens.com', now)], max);
    const siemens = (await organisations())['siemens.com'];
    expect(siemens).toBeDefined();
    const ofSiemens = async () =>
      (await sessions()).filter((s) => s.organisation_id === siemens).map((s) => s.id);
    expect(await ofSiemens()).toHaveLength(2);
    const anonymous = (
      await t.database.db
        .selectFrom('sessions')
        .select('id')
        .where('workspace_id', '=', ws)
        .where('organisation_id', '=', siemens ?? '')
        .where('visitor_id', '<>', max)
        .execute()
    ).map((s) => s.id);

    await overrides('AS400242,isp\n');
    const done = await mend();
    expect(done.organisations).toEqual([
      expect.objectContaining({
        domain: 'siemens.com',
        judged: expect.objectContaining({ kind: 'isp', rule: 'operator_override' }),
        sessions: anonymous,
        removed: false,
      }),
    ]);
    // Max said who he is with: his session stays Siemens's, and so does the organisation.
    expect(await ofSiemens()).toHaveLength(1);
    expect((await organisations())['siemens.com']).toBe(siemens);
    await overrides('');
  });
});
