import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { CHROME_UA } from '../helpers/collect.js';

/**
 * A fuzzer's sweep, made repeatable: every operation of /openapi.json (and the collector),
 * with one hostile value at a time in each path parameter, query parameter and body value,
 * against real resources so the request reaches the handler. No answer may be a 5xx, and
 * every error must carry contract §2's body.
 */

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read as plain JSON
type Json = any;

// Too deep for JSON.stringify here: a marker in the value, swapped for the raw text when sent.
const DEEP = '\u0001deep\u0001';
const DEEP_JSON = `${'['.repeat(5_000)}"x"${']'.repeat(5_000)}`;
const toJson = (value: unknown) =>
  JSON.stringify(value).replaceAll(JSON.stringify(DEEP), DEEP_JSON);

/** Hostile JSON values, put in place of one body value at a time. */
const HOSTILE_VALUES: [string, unknown][] = [
  ['NUL', 'a\u0000b'],
  ['unpaired surrogate', 'a\ud800b'],
  ['10,000 characters', 'x'.repeat(10_000)],
  ['year 0000', '0000-01-01'],
  ['year 10000', '10000-01-01'],
  // The last day there is: the day after it is not a day PostgreSQL can be sent as text.
  ['9999-12-31', '9999-12-31'],
  ['1e308', 1e308],
  ['2^31', 2 ** 31],
  ['-1', -1],
  ['5,000 levels deep', DEEP],
];

/** Hostile text for path and query parameters, already URL-encoded. */
const HOSTILE_TEXT: [string, string][] = [
  ['NUL', 'a%00b'],
  // A lone surrogate has no UTF-8 form; this is its CESU-8 bytes, invalid UTF-8.
  ['unpaired surrogate', 'a%ED%A0%80b'],
  ['10,000 characters', 'x'.repeat(10_000)],
  ['year 0000', '0000-01-01'],
  ['year 10000', '10000-01-01'],
  ['9999-12-31', '9999-12-31'],
  ['1e308', '1e308'],
  ['2^31', '2147483648'],
  ['-1', '-1'],
];

let t: TestApp;
let token: string;
let userId: string;
let workspace: string;
let organisation: string;
let segment: string;
let rule: string;
let script: string;
/** Another workspace's script for the collector, which unlinking the first cannot touch. */
let collectScript: string;

const FIELD_KEYS = ['tier', 'employees', 'renewal', 'plan', 'homepage', 'owner_email'];

/** Conditions on each kind of value the grammar takes: text, list, number, day, amount. */
const FILTERS = {
  operator: 'AND',
  conditions: [
    { field: 'name', comparison: 'contains', value: 'acme' },
    { field: 'domain', comparison: 'in', value: ['acme.com'] },
    { field: 'employees', comparison: 'greater_than', value: 7 },
    { field: 'renewal', comparison: 'less_than', value: '2030-01-01' },
    {
      operator: 'OR',
      conditions: [{ field: 'last_seen', comparison: 'less_than_x_units_ago', value: 3 }],
    },
  ],
};
/** Enough to reach the handler where another operation already tries every condition. */
const SMALL_FILTERS = {
  operator: 'OR',
  conditions: [{ field: 'first_seen', comparison: 'equal', value: '2026-01-01' }],
};

beforeAll(async () => {
  t = await startTestApp(
    {
      RATE_LIMIT_PER_MINUTE: '1000000',
      COLLECT_RATE_LIMIT_PER_IP: '100000000',
      COLLECT_RATE_LIMIT_PER_SCRIPT: '100000000',
      SPOTTER_RATE_LIMIT_PER_IP: '100000000',
    },
    // Webhook URLs resolve to a public address without asking the network.
    { resolve: async () => ['93.184.216.34'] },
  );
  const caller = await t.operator();
  token = caller.token;
  userId = caller.id;
  const api = client(t.url, token);
  const created = await api('POST', '/v1/workspaces', { url: 'https://acme.example' });
  workspace = created.body.data.uuid;
  script = created.body.data.tracking_script_id;
  collectScript = (await api('POST', '/v1/workspaces', { url: 'https://beta.example' })).body.data
    .tracking_script_id;
  organisation = randomUUID();
  await t.database.db
    .insertInto('organisations')
    .values({ workspace_id: workspace, id: organisation, domain: 'acme.com', name: 'Acme' })
    .execute();
  const option = { key: 'pro', label: 'Pro', color: '#123456' };
  for (const [key, type] of [
    ['tier', 'text'],
    ['employees', 'number'],
    ['renewal', 'date'],
    ['plan', 'select'],
    ['homepage', 'url'],
    ['owner_email', 'email'],
  ]) {
    const field = await api('POST', `/v1/workspaces/${workspace}/custom-fields`, {
      key,
      name: key,
      type,
      ...(type === 'select' && { options: [option] }),
    });
    expect(field.status).toBe(201);
  }
  const saved = await api('POST', `/v1/workspaces/${workspace}/segments`, {
    name: 'Everyone',
    filters: FILTERS,
  });
  expect(saved.status).toBe(201);
  segment = saved.body.uuid;
  const alert = await api('POST', `/v1/workspaces/${workspace}/notifications`, {
    name: 'Visits',
    trigger: 'organisation.visited',
    channel: { type: 'email', to: ['sales@acme.example'] },
  });
  expect(alert.status).toBe(201);
  rule = alert.body.data.uuid;
});
afterAll(() => t.close());

/** A request body that succeeds for each operation, the starting point of every variant. */
function baselineBody(method: string, template: string, key: string): unknown {
  const byOperation: Record<string, unknown> = {
    'POST /v1/me/tokens': { name: 'Hostile', expires_in_days: 1 },
    'POST /v1/workspaces/demo': {},
    'POST /t/collect': {
      tracking_script_id: script,
      anonymous_id: '6f1c2a4e-8b3d-4e5f-9a7b-1c2d3e4f5a6b',
      session_uuid: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      events: [{ type: 'pageview', ts: Date.UTC(2026, 10, 26), url: 'https://acme.example/' }],
    },
    'POST /v1/workspaces': { url: 'https://other.example', name: 'Other' },
    'PATCH /v1/workspaces/{uuid}': { usage_limit: 100 },
    'PATCH /v1/workspaces/{workspaceUuid}/tracker-features': { form_tracking: true },
    'POST /v1/workspaces/{workspaceUuid}/custom-fields': {
      key: 'extra',
      name: 'Extra',
      type: 'text',
      description: 'More',
      group: 'Sales',
      is_visible: true,
      field_rules: [{ type: 'max_length', config: { value: 20 } }],
      options: [{ key: 'a', label: 'A', color: '#abc' }],
    },
    'PATCH /v1/workspaces/{workspaceUuid}/custom-fields/{key}': {
      name: 'Tier',
      description: 'The tier',
      group: 'Sales',
      field_rules: [{ type: 'min_length', config: { value: 1 } }],
    },
    'POST /v1/workspaces/{workspaceUuid}/tags': { tag_name: 'vip' },
    'POST /v1/workspaces/{workspaceUuid}/segments': { name: 'More', filters: SMALL_FILTERS },
    'PATCH /v1/workspaces/{workspaceUuid}/segments/{segmentUuid}': {
      name: 'Everyone',
      filters: SMALL_FILTERS,
    },
    'POST /v1/workspaces/{workspaceUuid}/organisations': { filters: FILTERS },
    'POST /v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/tags': {
      tag_name: 'vip',
    },
    'DELETE /v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/tags': {
      tag_name: 'vip',
    },
    'PATCH /v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/custom-fields': {
      custom_fields: { tier: 'gold', employees: 250, renewal: '2027-03-01', new_note: 'hi' },
    },
    'PATCH /v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}': {
      status: 'customer',
    },
    'PUT /v1/workspaces/{workspaceUuid}/scoring': {
      rules: [
        {
          name: 'Big',
          filters: {
            operator: 'AND',
            conditions: [{ field: 'sessions', comparison: 'greater_than', value: 1 }],
          },
          points: 20,
        },
      ],
      key_pages: [{ url_contains: '/pricing', points: 30 }],
    },
    'POST /v1/workspaces/{workspaceUuid}/scoring/preview': {
      rules: [],
      key_pages: [{ url_contains: '/pricing', points: 30 }],
    },
    'PUT /v1/workspaces/{workspaceUuid}/excluded-domains': { domains: ['own.example'] },
    'POST /v1/workspaces/{workspaceUuid}/zapier/hooks': { hookUrl: 'https://hooks.example/z' },
    'PUT /v1/workspaces/{workspaceUuid}/integrations/{name}': {
      token: 'pat-hostile',
      enabled: true,
      settings: { min_score: 10, segment_uuid: null },
    },
    'PUT /v1/workspaces/{workspaceUuid}/my-digest': { enabled: true },
    'PATCH /v1/workspaces/{workspaceUuid}/privacy': { honor_gpc: true },
    'PATCH /v1/workspaces/{workspaceUuid}/filters': {
      excluded_ip_ranges: ['203.0.113.0/24'],
      hostnames: ['acme.example'],
    },
    'POST /auth/sign-in': { email: 'jo@acme.example', password: 'a password of some length' },
    'POST /auth/password': { current_password: 'old password 123', password: 'new password 456' },
    'POST /auth/setup/{secret}': {
      email: 'jo@acme.example',
      name: 'Jo',
      password: 'long enough pw',
    },
    'POST /auth/reset/{secret}': { password: 'long enough pw' },
    'POST /auth/forgot': { email: 'jo@acme.example' },
    'POST /auth/invites/{secret}/accept': { name: 'Jo', password: 'long enough pw' },
    'POST /v1/workspaces/{workspaceUuid}/users/invite': {
      email: 'new@acme.example',
      role: 'admin',
    },
    'PATCH /v1/workspaces/{workspaceUuid}/users/{userUuid}': { role: 'admin' },
    'POST /v1/workspaces/{workspaceUuid}/notifications': {
      name: 'Pricing views',
      enabled: true,
      trigger: 'page.visited',
      filter: { segment_uuid: segment, url_contains: '/pricing' },
      channel: { type: 'email', to: ['sales@acme.example'] },
      timezone: 'Europe/Amsterdam',
    },
    'PATCH /v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}': {
      name: 'Webhook alerts',
      enabled: false,
      trigger: 'organisation.visited',
      filter: { segment_uuid: null, url_contains: null },
      channel: { type: 'webhook', url: 'https://hooks.example/alerts', secret: 's'.repeat(20) },
      timezone: 'UTC',
    },
    'PATCH /radar/operator/v1/webhooks': {
      delivery: {
        webhook_url: 'https://hooks.example/footfall',
        webhook_secret: 's'.repeat(32),
        mode: 'session',
        events: ['organisation.identified', 'segment.entered'],
      },
    },
  };
  const values: Record<string, unknown> = {
    tier: 'gold',
    employees: 250,
    renewal: '2027-03-01',
    plan: 'pro',
    homepage: 'https://acme.com',
    owner_email: 'jo@acme.com',
  };
  if (template.endsWith('/custom-fields/{key}') && template.includes('{organisationUuid}')) {
    return method === 'PUT' ? { value: values[key] } : undefined;
  }
  return byOperation[`${method} ${template}`];
}

/** Query parameters that reach the handler; a list of sessions needs its dates. */
const BASELINE_QUERY: Record<string, Record<string, string>> = {
  '/v1/workspaces/{workspaceUuid}/sessions': { date_from: '2020-01-01', date_to: '2030-01-01' },
};
const EXCLUSIVE: Record<string, string[]> = {
  date: ['date_from', 'date_to'],
  date_from: ['date'],
  date_to: ['date'],
};

interface Probe {
  label: string;
  method: string;
  url: string;
  body?: unknown;
  contentType?: string;
}

/** Every place in `value` one hostile value can go: each leaf, each element, each key. */
function variants(value: unknown, path: string[] = []): [string, unknown][] {
  const out: [string, unknown][] = [];
  const at = path.join('.') || 'body';
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      for (const [where, changed] of variants(item, [...path, String(index)])) {
        const copy = [...value];
        copy[index] = changed;
        out.push([where, copy]);
      }
    });
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const [key, item] of Object.entries(record)) {
      for (const [where, changed] of variants(item, [...path, key])) {
        out.push([where, { ...record, [key]: changed }]);
      }
    }
    // A key PostgreSQL could not hold in a jsonb column.
    out.push([`${at} (key with NUL)`, { ...record, 'k\u0000': 'x' }]);
  }
  if (path.length > 0) {
    for (const [name, hostile] of HOSTILE_VALUES) {
      out.push([`${at} = ${name}`, hostile]);
    }
  }
  return out;
}

function queryString(query: Record<string, string>): string {
  const text = Object.entries(query)
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  return text ? `?${text}` : '';
}

function probesOf(document: Json): Probe[] {
  const probes: Probe[] = [];
  const destructive: Probe[] = [];
  const ids: Record<string, string> = {
    uuid: workspace,
    workspaceUuid: workspace,
    organisationUuid: organisation,
    segmentUuid: segment,
    ruleUuid: rule,
    trackingScriptId: script,
    userUuid: userId,
    secret: 'not-a-real-link-secret',
  };
  for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item as Record<string, Json>)) {
      const verb = method.toUpperCase();
      const parameters = (operation.parameters ?? []) as { name: string; in: string }[];
      const keys = template.endsWith('/custom-fields/{key}') ? FIELD_KEYS : ['tier'];
      for (const key of template.includes('{organisationUuid}') ? keys : ['tier']) {
        const pathOf = (hostile?: [string, string]) =>
          template.replace(/\{(\w+)\}/g, (_match, name: string) =>
            hostile?.[0] === name ? hostile[1] : name === 'key' ? key : (ids[name] ?? name),
          );
        const baseQuery = BASELINE_QUERY[template] ?? {};
        const body = baselineBody(verb, template, key);
        if (operation.requestBody && body === undefined) {
          throw new Error(`No baseline body for ${verb} ${template}: add one to baselineBody.`);
        }
        const add = (probe: Probe) =>
          (verb === 'DELETE' || template.endsWith('/unlink') ? destructive : probes).push(probe);
        const base = `${verb} ${template}${key === 'tier' ? '' : ` (${key})`}`;
        add({
          label: `${base}: as is`,
          method: verb,
          url: pathOf() + queryString(baseQuery),
          body,
        });
        for (const parameter of parameters) {
          for (const [name, hostile] of HOSTILE_TEXT) {
            if (parameter.in === 'path') {
              add({
                label: `${base}: path ${parameter.name} = ${name}`,
                method: verb,
                url: pathOf([parameter.name, hostile]) + queryString(baseQuery),
                body,
              });
            } else if (parameter.in === 'query') {
              const query = { ...baseQuery };
              for (const other of EXCLUSIVE[parameter.name] ?? []) delete query[other];
              query[parameter.name] = hostile;
              add({
                label: `${base}: query ${parameter.name} = ${name}`,
                method: verb,
                url: pathOf() + queryString(query),
                body,
              });
            }
          }
        }
        if (body !== undefined) {
          for (const [where, changed] of variants(body)) {
            add({
              label: `${base}: ${where}`,
              method: verb,
              url: pathOf() + queryString(baseQuery),
              body: changed,
            });
          }
        }
      }
    }
  }
  // Deletions and unlinking last, so every other probe still finds what it names.
  return [...probes, ...destructive];
}

/** A collect body with every event type and every collected string. */
function collectBody(): Record<string, unknown> {
  const ts = Date.now();
  const url = 'https://acme.example/pricing';
  return {
    tracking_script_id: collectScript,
    anonymous_id: randomUUID(),
    session_uuid: randomUUID(),
    events: [
      { type: 'pageview', ts, url, referrer: 'https://search.example/?q=acme', title: 'Pricing' },
      {
        type: 'form_submit',
        ts,
        url,
        form_id: 'contact',
        form_name: 'Contact us',
        time_spent: 12,
        fields: [{ name: 'company', value: 'Acme' }],
      },
      { type: 'click', ts, url, href: 'https://acme.example/docs', text: 'Docs' },
      { type: 'custom', ts, url, name: 'signup', properties: { plan: 'pro', seats: 3 } },
      { type: 'identify', ts, url, email: 'jo@acme.example', traits: { role: 'cto' } },
      { type: 'page_leave', ts, url, time_on_page: 30 },
    ],
  };
}

/** New visitor and session ids, unless the variant put a hostile value in their place. */
function freshVisitor(template: Record<string, unknown>, body: unknown) {
  const given = body as Record<string, unknown>;
  return {
    ...(given.anonymous_id === template.anonymous_id && { anonymous_id: randomUUID() }),
    ...(given.session_uuid === template.session_uuid && { session_uuid: randomUUID() }),
  };
}

interface Outcome {
  label: string;
  status: number;
  body: Json;
}

async function send(probe: Probe): Promise<Outcome> {
  const answer = await t.app.inject({
    method: probe.method as 'GET',
    url: probe.url,
    headers: {
      authorization: `Bearer ${token}`,
      'user-agent': CHROME_UA,
      ...(probe.body !== undefined && {
        'content-type': probe.contentType ?? 'application/json',
      }),
    },
    ...(probe.body !== undefined && { payload: toJson(probe.body) }),
  });
  let body: Json = answer.body;
  try {
    body = JSON.parse(answer.body);
  } catch {}
  return { label: probe.label, status: answer.statusCode, body };
}

/** Runs the probes a few at a time (order kept within each lane) and returns every outcome. */
async function sweep(probes: Probe[], lanes = 6): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < probes.length) {
        const probe = probes[next++] as Probe;
        outcomes.push(await send(probe));
      }
    }),
  );
  return outcomes;
}

/** What went wrong with each outcome: a 5xx, or an error without contract §2's body. */
function faults(outcomes: Outcome[]): string[] {
  const found: string[] = [];
  for (const { label, status, body } of outcomes) {
    if (status >= 500) {
      found.push(`${label} → ${status} ${JSON.stringify(body).slice(0, 200)}`);
    } else if (status >= 400 && !isErrorBody(body)) {
      found.push(
        `${label} → ${status} without the error body: ${String(JSON.stringify(body)).slice(0, 200)}`,
      );
    }
  }
  return found;
}

function isErrorBody(body: Json): boolean {
  if (typeof body !== 'object' || body === null || body.success !== false) return false;
  if (typeof body.message !== 'string' || body.message === '') return false;
  if (body.errors === undefined) return true;
  return (
    typeof body.errors === 'object' &&
    body.errors !== null &&
    Object.values(body.errors).every(
      (problems) =>
        Array.isArray(problems) && problems.every((problem) => typeof problem === 'string'),
    )
  );
}

describe('hostile input', () => {
  it('never answers 5xx to any operation in the OpenAPI document, and errors keep their shape', async () => {
    const document = (await client(t.url)('GET', '/openapi.json')).body;
    const probes = probesOf(document);
    const operations = new Set(probes.map((probe) => probe.label.split(':')[0]));
    expect(operations.size).toBeGreaterThan(30);
    const outcomes = await sweep(probes);
    expect(outcomes.length).toBe(probes.length);
    expect(faults(outcomes)).toEqual([]);
    // The sweep reached the handlers: hostile values were refused there, not only by routing.
    const refused = outcomes.filter((outcome) => outcome.status === 422).length;
    expect(refused).toBeGreaterThan(probes.length / 4);
  });

  it('never answers 5xx to the collector, and refuses what PostgreSQL cannot hold', async () => {
    const template = collectBody();
    const probes: Probe[] = [['as is', template] as [string, unknown], ...variants(template)].map(
      ([where, body]) => ({
        label: `collect: ${where}`,
        method: 'POST',
        url: '/t/collect',
        // A visitor of its own per request: this sweep is about values, not one visitor's
        // requests meeting in one write.
        body: { ...(body as object), ...freshVisitor(template, body) },
        contentType: 'text/plain;charset=UTF-8',
      }),
    );
    const outcomes = await sweep(probes);
    expect(outcomes.find((outcome) => outcome.label === 'collect: as is')?.status).toBe(202);
    expect(faults(outcomes)).toEqual([]);
    // What PostgreSQL cannot hold, and nesting, never reach the writer: the batch is a 400.
    const unstorable = outcomes.filter(({ label }) =>
      /= (NUL|unpaired surrogate|5,000 levels deep)$|key with NUL/.test(label),
    );
    expect(unstorable.length).toBeGreaterThan(50);
    for (const outcome of unstorable) expect(outcome.status, outcome.label).toBe(400);
  });
});
