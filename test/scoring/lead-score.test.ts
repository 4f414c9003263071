import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/accounts/store.js';
import { type Person, person } from '../accounts/helpers.js';
import { expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { until } from '../helpers/wait.js';

// Contract §17 through the API: traffic sent through the collector, scored by the
// server's own scoring job, read back as a client sees it.

const SITE = 'https://site.example';
const DAY = 86_400_000;

let t: TestApp;
let admin: Person;
let member: Person;
let outsider: Person;
let ws: { uuid: string; tracking_script_id: string };

interface Organisation {
  uuid: string;
  name: string;
  website: string;
  score: number;
  score_reasons: { reason: string; points: number }[];
  owner: { uuid: string; name: string; email: string } | null;
  status: string;
}

const base = () => `/v1/workspaces/${ws.uuid}`;

/** Sessions of a new visitor of `domain`'s organisation: an identify, then these pages. */
async function sessionsOf(domain: string, paths: string[][], daysAgo = 0): Promise<void> {
  const visitor = randomUUID();
  const start = Date.now() - daysAgo * DAY;
  for (const [i, pages] of paths.entries()) {
    const ts = start + i * 3_600_000 - paths.length * 3_600_000;
    const events = [
      identify(`${SITE}/`, `ann@${domain}`, ts),
      ...pages.map((path, j) => pageview(`${SITE}${path}`, ts + (j + 1) * 1000)),
    ];
    const answer = await collector(t.url)(visit(ws.tracking_script_id, events, { visitor }));
    expect(answer.status).toBe(202);
  }
}

async function list(query = '', who: Person = admin): Promise<Organisation[]> {
  const answer = await who.api('GET', `${base()}/organisations?size=100${query}`);
  expect(answer.status).toBe(200);
  return answer.body.data;
}
async function organisation(domain: string): Promise<Organisation> {
  const all = await list('&include_all=true');
  const found = all.find((o) => o.website === `https://${domain}`);
  if (!found) throw new Error(`no organisation of ${domain}`);
  return found;
}
/** Waits for the scoring job to give the organisation this score. */
async function scoreBecomes(domain: string, score: number): Promise<Organisation> {
  let last: Organisation | undefined;
  await until(async () => {
    last = await organisation(domain);
    return last.score === score;
  }).catch(() => {
    throw new Error(`${domain} scored ${last?.score}, not ${score}`);
  });
  return last as Organisation;
}

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  admin = await person(t, 'admin@scoring.example');
  member = await person(t, 'member@scoring.example');
  outsider = await person(t, 'outsider@scoring.example');
  ws = (await admin.api('POST', '/v1/workspaces', { url: SITE })).body.data;
  await addMember(t.database.db, ws.uuid, member.id, 'member');
});
afterAll(async () => {
  await t.close();
});

describe('lead score (contract §17)', () => {
  it('starts a new workspace with the documented defaults', async () => {
    const answer = await member.api('GET', `${base()}/scoring`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.defaults).toBe(true);
    expect(answer.body.data.key_pages).toEqual([
      { url_contains: '/pricing', points: 25 },
      { url_contains: '/demo', points: 25 },
      { url_contains: '/contact', points: 15 },
    ]);
    expect(answer.body.data.rules.map((rule: { name: string }) => rule.name)).toEqual([
      'Repeat visits (3 or more sessions)',
      'Read 10 or more pages',
      'Visited in the last 7 days',
    ]);
  });

  it('scores traffic sent through the collector: rules plus key pages of the last 30 days, reasons largest first', async () => {
    // Three sessions today, pricing and demo among their pages: 15 + 10 + 25 + 25.
    await sessionsOf('hot-lead.example', [['/pricing'], ['/demo', '/blog'], ['/']]);
    // One session 40 days ago on pricing: too old for the key page and the 7 days.
    await sessionsOf('old-lead.example', [['/pricing']], 40);
    // One session today reading the blog only.
    await sessionsOf('cold-lead.example', [['/blog']]);

    const hot = await scoreBecomes('hot-lead.example', 75);
    expect(hot.score_reasons).toEqual([
      { reason: 'Viewed /demo', points: 25 },
      { reason: 'Viewed /pricing', points: 25 },
      { reason: 'Repeat visits (3 or more sessions)', points: 15 },
      { reason: 'Visited in the last 7 days', points: 10 },
    ]);
    expect((await scoreBecomes('cold-lead.example', 10)).score_reasons).toEqual([
      { reason: 'Visited in the last 7 days', points: 10 },
    ]);
    const old = await organisation('old-lead.example');
    expect(old.score).toBe(0);
    expect(old.score_reasons).toEqual([]);
  });

  it('re-scores every organisation within a minute of a rule change, clamped to 0..100', async () => {
    await sessionsOf('hot-lead.example', [['/pricing']]);
    const rules = {
      rules: [
        {
          name: 'Anyone who visited',
          filters: {
            operator: 'AND',
            conditions: [{ field: 'sessions', comparison: 'greater_than', value: 0 }],
          },
          points: 90,
        },
        {
          name: 'Reads the blog',
          filters: {
            operator: 'AND',
            conditions: [{ field: 'url', comparison: 'contains', value: '/blog' }],
          },
          points: -100,
        },
      ],
      key_pages: [{ url_contains: '/PRICING', points: 30 }],
    };
    // Members read it; only admins change it.
    expect((await member.api('PUT', `${base()}/scoring`, rules)).status).toBe(403);
    const started = Date.now();
    const saved = await admin.api('PUT', `${base()}/scoring`, rules);
    expect(saved.status).toBe(200);
    expect(saved.body.data.defaults).toBe(false);
    // hot: 90 + 30 - 100 (it read the blog) = 20; old: 90 (its pricing view is 40 days old);
    // cold: 90 - 100 → 0.
    await scoreBecomes('hot-lead.example', 20);
    await scoreBecomes('old-lead.example', 90);
    await scoreBecomes('cold-lead.example', 0);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect((await organisation('hot-lead.example')).score_reasons).toEqual([
      { reason: 'Anyone who visited', points: 90 },
      { reason: 'Viewed /PRICING', points: 30 },
      { reason: 'Reads the blog', points: -100 },
    ]);
    // A sum above 100 is 100.
    await admin.api('PUT', `${base()}/scoring`, {
      ...rules,
      rules: [rules.rules[0], { ...rules.rules[0], name: 'Twice' }],
    });
    await scoreBecomes('old-lead.example', 100);
    // Back to the defaults (admins only), and scores with them.
    expect((await member.api('DELETE', `${base()}/scoring`)).status).toBe(403);
    const reset = await admin.api('DELETE', `${base()}/scoring`);
    expect(reset.body.data.defaults).toBe(true);
    await scoreBecomes('old-lead.example', 0);
    await admin.api('PUT', `${base()}/scoring`, rules);
    await scoreBecomes('old-lead.example', 90);
  });

  it('refuses rules it cannot use, naming the field', async () => {
    const rule = (filters: unknown, points = 10) => ({
      rules: [{ name: 'R', filters, points }],
      key_pages: [],
    });
    const scoreRule = rule({
      operator: 'AND',
      conditions: [{ field: 'score', comparison: 'greater_than', value: 5 }],
    });
    expectFieldError(
      await admin.api('PUT', `${base()}/scoring`, scoreRule),
      'rules.0.filters.conditions.0.field',
    );
    const tooMany = rule(
      {
        operator: 'AND',
        conditions: [{ field: 'sessions', comparison: 'greater_than', value: 1 }],
      },
      101,
    );
    expect((await admin.api('PUT', `${base()}/scoring`, tooMany)).status).toBe(422);
    const page = { rules: [], key_pages: [{ url_contains: '/x', points: -5 }] };
    expect((await admin.api('PUT', `${base()}/scoring`, page)).status).toBe(422);
  });

  it('previews how many leads would score above 60, saving nothing', async () => {
    const before = (await admin.api('GET', `${base()}/scoring`)).body.data;
    const preview = await member.api('POST', `${base()}/scoring/preview`, {
      rules: [
        {
          name: 'Pricing readers',
          filters: {
            operator: 'AND',
            conditions: [{ field: 'url', comparison: 'contains', value: '/pricing' }],
          },
          points: 61,
        },
      ],
      key_pages: [],
    });
    expect(preview.status).toBe(200);
    // hot and old viewed pricing (old 40 days ago: a rule on url has no time limit).
    expect(preview.body.data).toEqual({ threshold: 60, above: 2, leads: 3 });
    expect((await admin.api('GET', `${base()}/scoring`)).body.data).toEqual(before);
  });
});

describe('owners and status', () => {
  it('lets any member set an owner who is a member, and nobody else', async () => {
    const hot = await organisation('hot-lead.example');
    const path = `${base()}/organisations/${hot.uuid}`;
    const refused = await member.api('PATCH', path, { owner_uuid: outsider.id });
    expectFieldError(refused, 'owner_uuid');
    expect((await member.api('PATCH', path, { owner_uuid: 'me' })).status).toBe(422);
    const set = await member.api('PATCH', path, { owner_uuid: member.id });
    expect(set.status).toBe(200);
    expect(set.body.data.owner).toEqual({
      uuid: member.id,
      name: 'member',
      email: 'member@scoring.example',
    });
    // Another workspace's organisation is missing, as if it did not exist.
    expect((await outsider.api('PATCH', path, { status: 'hidden' })).status).toBe(404);
    const bad = await member.api('PATCH', path, { status: 'friend' });
    expect(bad.status).toBe(422);
  });

  it('sorts by score, name and sessions, and filters by owner (me) and status', async () => {
    const names = (orgs: Organisation[]) => orgs.map((o) => o.name);
    const byScore = await list('&sort=-score');
    expect(byScore.map((o) => o.score)).toEqual(
      [...byScore.map((o) => o.score)].sort((a, b) => b - a),
    );
    expect(names(await list('&sort=name'))).toEqual(names(byScore).sort());
    expect(names(await list('&sort=-name'))).toEqual(names(byScore).sort().reverse());
    const sessions = await list('&sort=-sessions');
    expect(sessions[0]?.website).toBe('https://hot-lead.example');
    expect(names(await list('&owner=me', member))).toEqual([sessions[0]?.name]);
    expect(names(await list(`&owner=${member.id}`))).toEqual([sessions[0]?.name]);
    expect(await list('&owner=me')).toEqual([]);
    expectFieldError(await admin.api('GET', `${base()}/organisations?sort=score_desc`), 'sort');
    expectFieldError(
      await admin.api('GET', `${base()}/organisations?owner=${outsider.id}`),
      'owner',
    );
    expectFieldError(await admin.api('GET', `${base()}/organisations?status=friend`), 'status');
  });

  it('leaves customers, competitors and hidden organisations out of the list and CSV unless asked', async () => {
    const cold = await organisation('cold-lead.example');
    const old = await organisation('old-lead.example');
    const patch = (o: Organisation, status: string) =>
      member.api('PATCH', `${base()}/organisations/${o.uuid}`, { status });
    expect((await patch(cold, 'customer')).body.data.status).toBe('customer');
    expect((await patch(old, 'competitor')).body.data.status).toBe('competitor');
    const leads = (await list()).map((o) => o.website);
    expect(leads).toEqual(['https://hot-lead.example']);
    expect((await list('&status=customer')).map((o) => o.uuid)).toEqual([cold.uuid]);
    expect((await list('&status=customer,competitor&sort=name')).map((o) => o.uuid).sort()).toEqual(
      [cold.uuid, old.uuid].sort(),
    );
    expect(await list('&include_all=true')).toHaveLength(3);
    // §9 filters name the status: then it decides.
    const filters = encodeURIComponent(
      JSON.stringify({
        operator: 'AND',
        conditions: [{ field: 'status', comparison: 'equal', value: 'competitor' }],
      }),
    );
    expect((await list(`&filters=${filters}`)).map((o) => o.uuid)).toEqual([old.uuid]);
    const csv = await admin.api('GET', `${base()}/organisations.csv`);
    expect(csv.status).toBe(200);
    const lines = String(csv.body).trim().split('\n');
    expect(lines).toHaveLength(2); // header and the one lead
    expect(lines[1]).toContain('hot-lead.example');
    const all = await admin.api('GET', `${base()}/organisations.csv?include_all=true`);
    expect(String(all.body).trim().split('\n')).toHaveLength(4);
    await patch(cold, 'lead');
    await patch(old, 'lead');
  });

  it('filters segments by score, status and owner (uuid or e-mail)', async () => {
    const search = (conditions: unknown[]) =>
      admin.api('POST', `${base()}/organisations?size=100`, {
        filters: { operator: 'AND', conditions },
      });
    const owned = await search([
      { field: 'owner', comparison: 'equal', value: 'MEMBER@scoring.example' },
      { field: 'score', comparison: 'greater_than_or_equal', value: 0 },
    ]);
    expect(owned.body.data.map((o: Organisation) => o.owner?.uuid)).toEqual([member.id]);
    const byUuid = await search([{ field: 'owner', comparison: 'equal', value: member.id }]);
    expect(byUuid.body.total).toBe(1);
    const unowned = await search([{ field: 'owner', comparison: 'not_set' }]);
    expect(unowned.body.total).toBe(2);
    expectFieldError(
      await search([{ field: 'status', comparison: 'equal', value: 'friend' }]),
      'filters.conditions.0.value',
    );
  });
});

describe('excluded domains', () => {
  it('hides the organisations of those domains, known and new, and brings them back when taken off', async () => {
    const path = `${base()}/excluded-domains`;
    expect((await member.api('PUT', path, { domains: ['cold-lead.example'] })).status).toBe(403);
    const saved = await admin.api('PUT', path, {
      domains: ['https://www.cold-lead.example/about', 'new-corp.example', 'COLD-LEAD.example'],
    });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toEqual({
      domains: ['cold-lead.example', 'new-corp.example'],
      hidden: 1,
      shown: 0,
    });
    expect((await member.api('GET', path)).body.data.domains).toEqual([
      'cold-lead.example',
      'new-corp.example',
    ]);
    // A new organisation of an excluded domain arrives hidden.
    await sessionsOf('new-corp.example', [['/pricing']]);
    await until(async () => (await list('&status=hidden')).length === 2);
    expect((await list('&sort=name')).map((o) => o.website)).toEqual([
      'https://hot-lead.example',
      'https://old-lead.example',
    ]);
    expectFieldError(await admin.api('PUT', path, { domains: ['not a domain'] }), 'domains.0');
    // Taken off the list: what it hid comes back; a person's choice stays.
    const hidden = await organisation('new-corp.example');
    await member.api('PATCH', `${base()}/organisations/${hidden.uuid}`, { status: 'competitor' });
    const cleared = await admin.api('PUT', path, { domains: [] });
    expect(cleared.body.data).toMatchObject({ domains: [], shown: 1 });
    expect((await list('&status=competitor')).map((o) => o.uuid)).toEqual([hidden.uuid]);
  });
});

describe('a member who leaves', () => {
  it('stops owning organisations', async () => {
    const hot = await organisation('hot-lead.example');
    expect(hot.owner?.uuid).toBe(member.id);
    const removed = await admin.api('DELETE', `${base()}/users/${member.id}`);
    expect(removed.status).toBeLessThan(300);
    expect((await organisation('hot-lead.example')).owner).toBeNull();
  });
});
