import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/accounts/store.js';
import { createUser } from '../../src/auth/users.js';
import { createZapierHook } from '../../src/integrations/zapier/store.js';
import { type Answer, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { type Person, person } from './helpers.js';

/**
 * Contract §12's permission table, written out here on its own (not read from the code):
 * for every operation of /openapi.json under a workspace, which row of the table it is.
 */
type Row = 'read' | 'write' | 'settings' | 'members' | 'delete';
const ALLOWED: Record<'owner' | 'admin' | 'member', Row[]> = {
  owner: ['read', 'write', 'settings', 'members', 'delete'],
  admin: ['read', 'write', 'settings', 'members'],
  member: ['read', 'write'],
};

const W = '/v1/workspaces/{uuid}';
const WS = '/v1/workspaces/{workspaceUuid}';
const ORG = `${WS}/organisations/{organisationUuid}`;

interface Fixture {
  ws: string;
  org: string;
  segment: string;
  contact: string;
  target: string;
  rule: string;
  hook: string;
}

const EMAIL_CHANNEL = { type: 'email', to: ['sales@perm.example'] };

/** Each operation's row, and a request that succeeds when the role allows it. */
const OPERATIONS: Record<string, { row: Row; path?: (f: Fixture) => string; body?: unknown }> = {
  [`GET ${W}`]: { row: 'read' },
  [`PATCH ${W}`]: { row: 'settings', body: { usage_limit: 500 } },
  [`DELETE ${W}`]: { row: 'delete' },
  [`POST ${W}/unlink`]: { row: 'settings' },
  [`GET ${WS}/tracker-features`]: { row: 'read' },
  [`PATCH ${WS}/tracker-features`]: { row: 'settings', body: { click_tracking: false } },
  [`GET ${WS}/privacy`]: { row: 'read' },
  [`PATCH ${WS}/privacy`]: { row: 'settings', body: { honor_gpc: false } },
  [`GET ${WS}/filters`]: { row: 'read' },
  [`PATCH ${WS}/filters`]: { row: 'settings', body: { excluded_ip_ranges: ['10.0.0.0/8'] } },
  [`GET ${WS}/custom-fields`]: { row: 'read' },
  [`POST ${WS}/custom-fields`]: {
    row: 'settings',
    body: { key: 'region', name: 'Region', type: 'text' },
  },
  [`GET ${WS}/custom-fields/{key}`]: { row: 'read' },
  [`PATCH ${WS}/custom-fields/{key}`]: { row: 'settings', body: { name: 'Budget (EUR)' } },
  [`DELETE ${WS}/custom-fields/{key}`]: { row: 'settings' },
  [`POST ${WS}/tags`]: { row: 'write', body: { tag_name: 'partner' } },
  [`GET ${WS}/segments`]: { row: 'read' },
  [`POST ${WS}/segments`]: {
    row: 'write',
    body: {
      name: 'Big',
      filters: {
        operator: 'AND',
        conditions: [{ field: 'sessions', comparison: 'greater_than', value: 0 }],
      },
    },
  },
  [`GET ${WS}/segments/{segmentUuid}`]: { row: 'read' },
  [`PATCH ${WS}/segments/{segmentUuid}`]: { row: 'write', body: { name: 'Renamed' } },
  [`DELETE ${WS}/segments/{segmentUuid}`]: { row: 'write' },
  [`GET ${WS}/sessions`]: {
    row: 'read',
    path: (f) => `/v1/workspaces/${f.ws}/sessions?date=${new Date().toISOString().slice(0, 10)}`,
  },
  [`GET ${WS}/organisations`]: { row: 'read' },
  [`POST ${WS}/organisations`]: {
    row: 'read',
    body: {
      filters: {
        operator: 'AND',
        conditions: [{ field: 'sessions', comparison: 'greater_than', value: 0 }],
      },
    },
  },
  [`GET ${ORG}`]: { row: 'read' },
  // Contract §17: any member sets owner and status; admins change scoring and exclusions.
  [`PATCH ${ORG}`]: { row: 'write', body: { status: 'customer' } },
  [`GET ${WS}/scoring`]: { row: 'read' },
  [`PUT ${WS}/scoring`]: {
    row: 'settings',
    body: { rules: [], key_pages: [{ url_contains: '/pricing', points: 30 }] },
  },
  [`DELETE ${WS}/scoring`]: { row: 'settings' },
  [`POST ${WS}/scoring/preview`]: { row: 'read', body: { rules: [], key_pages: [] } },
  [`GET ${WS}/excluded-domains`]: { row: 'read' },
  [`PUT ${WS}/excluded-domains`]: { row: 'settings', body: { domains: ['own.example'] } },
  // Contract §18: Zapier hooks are admins' (reading them too).
  [`GET ${WS}/zapier/hooks`]: { row: 'settings' },
  [`POST ${WS}/zapier/hooks`]: { row: 'settings', body: { hookUrl: 'http://127.0.0.1:9/z' } },
  [`DELETE ${WS}/zapier/hooks/{hookId}`]: { row: 'settings' },
  // CRM connections too (a wrong token is refused by the CRM only after the role check).
  [`GET ${WS}/integrations`]: { row: 'settings' },
  [`PUT ${WS}/integrations/{name}`]: { row: 'settings', body: { settings: { min_score: 50 } } },
  [`DELETE ${WS}/integrations/{name}`]: { row: 'settings' },
  [`POST ${WS}/integrations/{name}/sync`]: { row: 'settings' },
  [`GET ${WS}/my-digest`]: { row: 'read' },
  [`PUT ${WS}/my-digest`]: { row: 'write', body: { enabled: true } },
  [`GET ${ORG}/sessions`]: { row: 'read' },
  [`POST ${ORG}/tags`]: { row: 'write', body: { tag_name: 'warm' } },
  [`DELETE ${ORG}/tags`]: { row: 'write', body: { tag_name: 'hot' } },
  [`GET ${ORG}/custom-fields`]: { row: 'read' },
  [`PATCH ${ORG}/custom-fields`]: { row: 'write', body: { custom_fields: { budget: 7 } } },
  [`PUT ${ORG}/custom-fields/{key}`]: { row: 'write', body: { value: 9 } },
  [`DELETE ${ORG}/custom-fields/{key}`]: { row: 'write' },
  [`GET ${WS}/contacts`]: { row: 'read' },
  [`PUT ${WS}/contacts/{contactUuid}/reveal-email`]: { row: 'read' },
  [`GET ${WS}/stats`]: {
    row: 'read',
    path: (f) => {
      const day = new Date().toISOString().slice(0, 10);
      return `/v1/workspaces/${f.ws}/stats?date_from=${day}&date_to=${day}`;
    },
  },
  [`GET ${WS}/organisations.csv`]: { row: 'read' },
  [`GET ${WS}/installation`]: { row: 'read' },
  [`GET ${WS}/sessions.csv`]: { row: 'read' },
  [`GET ${WS}/notifications`]: { row: 'read' },
  [`POST ${WS}/notifications`]: {
    row: 'settings',
    body: { name: 'Visits', trigger: 'organisation.visited', channel: EMAIL_CHANNEL },
  },
  [`GET ${WS}/notifications/{ruleUuid}`]: { row: 'read' },
  [`PATCH ${WS}/notifications/{ruleUuid}`]: { row: 'settings', body: { enabled: false } },
  [`DELETE ${WS}/notifications/{ruleUuid}`]: { row: 'settings' },
  [`POST ${WS}/notifications/{ruleUuid}/test`]: { row: 'settings' },
  [`GET ${WS}/notifications/{ruleUuid}/deliveries`]: { row: 'read' },
  [`GET ${WS}/users`]: { row: 'read' },
  [`POST ${WS}/users/invite`]: { row: 'members', body: { email: 'new.person@example.com' } },
  [`PATCH ${WS}/users/{userUuid}`]: { row: 'members', body: { role: 'admin' } },
  [`DELETE ${WS}/users/{userUuid}`]: { row: 'members' },
};

/** Routes that are about the caller, not a workspace: every signed-in user may call them. */
const NOT_IN_A_WORKSPACE = new Set([
  'GET /v1/me',
  'GET /v1/me/tokens',
  'POST /v1/me/tokens',
  'DELETE /v1/me/tokens/{tokenUuid}',
  'GET /v1/workspaces',
  'POST /v1/workspaces',
  'POST /v1/workspaces/demo',
  // The tracking script's: no token, no member; its script id names the workspace.
  'POST /t/collect',
  'GET /radar/operator/v1/webhooks',
  'PATCH /radar/operator/v1/webhooks',
  'GET /radar/operator/v1/webhooks/deliveries',
  'POST /radar/operator/v1/webhooks/test',
  'POST /radar/operator/v1/webhooks/deliveries/{uuid}/redeliver',
]);

let t: TestApp;
let owner: Person;
let admin: Person;
let member: Person;
let outsider: Person;
let operations: { method: string; template: string }[];
const SITE = 'https://perm.example';

beforeAll(async () => {
  // Hundreds of calls in a minute: the per-token rate limit is not what is tested here.
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000', ALLOW_PRIVATE_WEBHOOKS: 'true' });
  const people = await Promise.all(
    ['owner', 'admin', 'member', 'outsider'].map((name) => person(t, `${name}@perm.example`)),
  );
  [owner, admin, member, outsider] = people as [Person, Person, Person, Person];
  const { body } = await owner.api('GET', '/openapi.json');
  operations = Object.entries(body.paths as Record<string, Record<string, unknown>>).flatMap(
    ([template, item]) =>
      Object.keys(item).map((method) => ({ method: method.toUpperCase(), template })),
  );
});
afterAll(() => t.close());

let targets = 0;
/** A workspace with every kind of thing in it, its owner, an admin, a member and a target. */
async function fixture(): Promise<Fixture> {
  const created = await owner.api('POST', '/v1/workspaces', { url: SITE });
  const ws = created.body.data.uuid as string;
  const script = created.body.data.tracking_script_id as string;
  await addMember(t.database.db, ws, admin.id, 'admin');
  await addMember(t.database.db, ws, member.id, 'member');
  const target = await createUser(t.database.db, `target${++targets}@perm.example`);
  await addMember(t.database.db, ws, target.id, 'member');
  const now = Date.now();
  const sent = await collector(t.url)(
    visit(script, [pageview(`${SITE}/`, now - 1000), identify(`${SITE}/`, 'ann@initech.com', now)]),
  );
  expect(sent.status).toBe(202);
  const org = (await owner.api('GET', `/v1/workspaces/${ws}/organisations`)).body.data[0].uuid;
  const contact = (await owner.api('GET', `/v1/workspaces/${ws}/contacts`)).body.data[0].uuid;
  await owner.api('POST', `/v1/workspaces/${ws}/custom-fields`, {
    key: 'budget',
    name: 'Budget',
    type: 'number',
  });
  await owner.api('PUT', `/v1/workspaces/${ws}/organisations/${org}/custom-fields/budget`, {
    value: 5,
  });
  await owner.api('POST', `/v1/workspaces/${ws}/organisations/${org}/tags`, { tag_name: 'hot' });
  const segment = await owner.api(
    'POST',
    `/v1/workspaces/${ws}/segments`,
    OPERATIONS[`POST ${WS}/segments`]?.body,
  );
  const rule = await owner.api('POST', `/v1/workspaces/${ws}/notifications`, {
    name: 'Fixture',
    trigger: 'organisation.visited',
    channel: EMAIL_CHANNEL,
  });
  const hook = await createZapierHook(t.database.db, ws, {
    name: 'Fixture',
    hookUrl: 'http://127.0.0.1:9/z',
    event: 'new_lead',
  });
  // A CRM connection, paused so that nothing is sent anywhere (PUT with a token would ask
  // the CRM; its checks are test/integrations/crm.test.ts's).
  await t.database.db
    .insertInto('crm_connections')
    .values({
      workspace_id: ws,
      name: 'hubspot',
      token_encrypted: Buffer.from('x'),
      enabled: false,
    })
    .execute();
  return {
    ws,
    org,
    segment: segment.body.uuid,
    contact,
    target: target.id,
    rule: rule.body.data.uuid,
    hook: hook.id,
  };
}

function concrete(template: string, f: Fixture): string {
  return template
    .replace('{uuid}', f.ws)
    .replace('{workspaceUuid}', f.ws)
    .replace('{organisationUuid}', f.org)
    .replace('{segmentUuid}', f.segment)
    .replace('{contactUuid}', f.contact)
    .replace('{userUuid}', f.target)
    .replace('{ruleUuid}', f.rule)
    .replace('{hookId}', f.hook)
    .replace('{name}', 'hubspot')
    .replace('{key}', 'budget');
}

const roles = { owner: () => owner, admin: () => admin, member: () => member } as const;

describe('the permission table (contract §12), for every workspace route of /openapi.json', () => {
  it('knows every operation the document lists', () => {
    const unknown = operations
      .map(({ method, template }) => `${method} ${template}`)
      .filter(
        (key) =>
          !(key in OPERATIONS) &&
          !NOT_IN_A_WORKSPACE.has(key) &&
          !key.includes(' /auth/') &&
          !key.includes(' /spotter/'),
      );
    expect(unknown).toEqual([]);
    expect(operations.length).toBeGreaterThan(30);
  });

  for (const via of ['token', 'cookie'] as const) {
    it(`answers owner, admin, member and non-member as the table says (${via})`, async () => {
      const outcomes: string[] = [];
      const expected: string[] = [];
      const shared = await fixture();
      const who: [string, () => Person][] = [
        ...Object.entries(roles),
        ['non-member', () => outsider],
      ];
      for (const { method, template } of operations) {
        const operation = OPERATIONS[`${method} ${template}`];
        if (!operation) continue;
        // The four callers at once, in order: each write on a fresh workspace of its own, so
        // that one call cannot change what another sees.
        const answers = await Promise.all(
          who.map(async ([, caller]) => {
            const f = method === 'GET' ? shared : await fixture();
            const path = operation.path?.(f) ?? concrete(template, f);
            return via === 'token'
              ? caller().api(method, path, operation.body)
              : caller().browser(method, path, operation.body);
          }),
        );
        who.forEach(([role], i) => {
          const allowed =
            role !== 'non-member' && ALLOWED[role as keyof typeof ALLOWED].includes(operation.row);
          outcomes.push(`${method} ${template} as ${role}: ${kind((answers[i] as Answer).status)}`);
          expected.push(
            `${method} ${template} as ${role}: ${role === 'non-member' ? '404' : allowed ? '2xx' : '403'}`,
          );
        });
      }
      expect(outcomes).toEqual(expected);
    }, 240_000);
  }

  it('refuses a cookie write without the CSRF header (403), and changes nothing', async () => {
    const f = await fixture();
    const path = `/v1/workspaces/${f.ws}`;
    const refused = await owner.browser('PATCH', path, { usage_limit: 7 }, { csrf: false });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/X-Footfall-CSRF/);
    const wrong = await owner.browser(
      'PATCH',
      path,
      { usage_limit: 7 },
      { csrf: false, headers: { 'x-footfall-csrf': 'not-the-cookie' } },
    );
    expect(wrong.status).toBe(403);
    expect((await owner.api('GET', path)).body.data.usage_limit).toBe('10000');
    // Reads need no header.
    expect((await owner.browser('GET', path, undefined, { csrf: false })).status).toBe(200);
  });
});

function kind(status: number): string {
  return status >= 200 && status < 300 ? '2xx' : String(status);
}
