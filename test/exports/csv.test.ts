import { type ClientRequest, get as httpGet, type IncomingMessage } from 'node:http';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { person } from '../accounts/helpers.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { addCompanies } from '../helpers/companies.js';
import { until } from '../helpers/wait.js';

// Organisations whose names a naive CSV writer breaks, or a spreadsheet runs as formulas.
const ORGS = [
  { ip: '81.2.69.1', network: '81.2.69.0/24', domain: 'comma.example', name: 'Comma, Inc.' },
  { ip: '81.2.70.1', network: '81.2.70.0/24', domain: 'quote.example', name: 'The "Quote" Ltd' },
  { ip: '81.2.71.1', network: '81.2.71.0/24', domain: 'newline.example', name: 'Line\nBreak GmbH' },
  {
    ip: '81.2.72.1',
    network: '81.2.72.0/24',
    domain: 'formula.example',
    name: '=HYPERLINK("http://x.example","click")',
  },
  { ip: '81.2.73.1', network: '81.2.73.0/24', domain: 'at.example', name: '@SUM(A1:A2)' },
  { ip: '81.2.74.1', network: '81.2.74.0/24', domain: 'plus.example', name: '+49 Trading' },
  { ip: '81.2.75.1', network: '81.2.75.0/24', domain: 'minus.example', name: '-Minus AG' },
  {
    ip: '81.2.76.1',
    network: '81.2.76.0/24',
    domain: 'societe.example',
    name: 'Société Générale — Zürich',
  },
  // Formulas after a separator: a spreadsheet that splits on `;` or `,` would run them.
  {
    ip: '81.2.77.1',
    network: '81.2.77.0/24',
    domain: 'semicolon.example',
    name: 'safe;=HYPERLINK("http://x.example","click")',
  },
  { ip: '81.2.78.1', network: '81.2.78.0/24', domain: 'after-comma.example', name: 'x,@SUM(1)' },
] as const;
const DAY = (d: number, time = '10:00') => Date.parse(`2026-05-0${d}T${time}:00Z`);
const PAGE = (path: string) => `https://site.example/${path}`;
const PUBLIC_URL = 'https://ff.example';

let t: TestApp;
let api: ReturnType<typeof client>;
let token: string;
let ws: string;

interface Csv {
  status: number;
  type: string | null;
  disposition: string | null;
  text: string;
  rows: string[][];
}
async function csv(path: string, token?: string): Promise<Csv> {
  const response = await fetch(`${t.url}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    disposition: response.headers.get('content-disposition'),
    text,
    rows: response.ok ? parse(text, { bom: true, relax_column_count: false }) : [],
  };
}
/** A spreadsheet-safe cell as the export writes text (contract §15). */
function safe(text: string): string {
  const inside = text.replace(/([;,]\s*)([=+\-@])/g, "$1'$2");
  return /^[=+\-@\t\r]/.test(inside) ? `'${inside}` : inside;
}
/** Cells that, split on `;` and `,` as some spreadsheets do, would start with a formula. */
function formulas(rows: string[][]): string[] {
  return rows
    .flat()
    .filter((cell) => !/^-?\d+(\.\d+)?$/.test(cell)) // numbers are written as numbers
    .filter((cell) => cell.split(/[;,]/).some((part) => /^[=+\-@]/.test(part.trimStart())));
}

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '127.0.0.1', PUBLIC_URL });
  token = (await t.operator()).token;
  api = client(t.url, token);
  await upsertIpRanges(
    t.database.db,
    ORGS.map(({ network, domain, name }) => ({ network, domain, name })),
  );
  await addCompanies(t.database.db, [
    {
      domain: 'comma.example',
      industry: 'Software',
      size: '11-50',
      address: { country: 'DE', city: 'Berlin' },
    },
    { domain: 'societe.example', industry: 'Finance', address: { country: 'CH', city: 'Zürich' } },
  ]);
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://www.site.example' })).body
    .data;
  ws = workspace.uuid;
  await api('POST', `/v1/workspaces/${ws}/custom-fields`, {
    key: 'tier',
    name: 'Tier, level',
    type: 'text',
  });
  await api('POST', `/v1/workspaces/${ws}/custom-fields`, {
    key: 'seats',
    name: 'Seats',
    type: 'number',
  });
  const collect = collector(t.url);
  for (const [i, org] of ORGS.entries()) {
    const answer = await collect(
      visit(workspace.tracking_script_id, [
        pageview(
          PAGE(`pricing?plan=${i}`),
          DAY(1 + (i % 4), `1${i}:00`),
          'https://www.google.com/',
        ),
        pageview(PAGE('contact, "us"'), DAY(1 + (i % 4), `1${i}:01`)),
      ]),
      { 'x-forwarded-for': org.ip },
    );
    expect(answer.status).toBe(202);
  }
  await until(
    async () =>
      (await api('GET', `/v1/workspaces/${ws}/organisations?size=100`)).body.total === ORGS.length,
  );
  const list = (await api('GET', `/v1/workspaces/${ws}/organisations?size=100`)).body.data as {
    uuid: string;
    name: string;
  }[];
  const comma = list.find((o) => o.name === 'Comma, Inc.');
  await api('POST', `/v1/workspaces/${ws}/organisations/${comma?.uuid}/tags`, {
    tag_name: 'Target',
  });
  await api('POST', `/v1/workspaces/${ws}/organisations/${comma?.uuid}/tags`, { tag_name: '=cmd' });
  await api('PUT', `/v1/workspaces/${ws}/organisations/${comma?.uuid}/custom-fields/tier`, {
    value: 'Gold, "A"',
  });
  await api('PUT', `/v1/workspaces/${ws}/organisations/${comma?.uuid}/custom-fields/seats`, {
    value: -5,
  });
});
afterAll(() => t.close());

describe('CSV exports', () => {
  it('exports organisations row by row as the list shows them, spreadsheet-safe', async () => {
    const list = (await api('GET', `/v1/workspaces/${ws}/organisations?size=100`)).body
      .data as Record<string, unknown>[];
    const file = await csv(`/v1/workspaces/${ws}/organisations.csv`, (await t.operator()).token);
    expect(file.status).toBe(404); // another user's workspace
    const mine = await csv(`/v1/workspaces/${ws}/organisations.csv`, token);
    expect(mine.status).toBe(200);
    expect(mine.type).toBe('text/csv; charset=utf-8');
    expect(mine.disposition).toMatch(
      /^attachment; filename="site\.example-organisations-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const [header, ...rows] = mine.rows;
    expect(header).toEqual([
      'Organisation',
      'Domain',
      'Website',
      'Industry',
      'Size',
      'Country',
      'City',
      'First seen',
      'Last seen',
      'Sessions',
      'Page views',
      'Time on site',
      'Visitors',
      'Tags',
      'Segments',
      'Score',
      'Status',
      'Owner',
      'Tier, level',
      'Seats',
      'Footfall link',
    ]);
    expect(rows.length).toBe(list.length);
    rows.forEach((row, i) => {
      const o = list[i] as {
        uuid: string;
        name: string;
        website: string;
        industry: string;
        size: string;
        address: { country: string; city: string };
        first_seen: string;
        last_seen: string;
        total_pageviews: number;
        total_sessions: number;
        total_time_on_site: string;
        unique_visitor_count: number;
        tags: string[];
        custom_fields: Record<string, unknown>;
        score: number;
        status: string;
        owner: { email: string } | null;
      };
      expect(row[0]).toBe(safe(o.name));
      expect(row[2]).toBe(o.website);
      expect(row[3]).toBe(o.industry);
      expect(row[5]).toBe(o.address.country);
      expect(row[6]).toBe(o.address.city);
      expect(row[7]).toBe(o.first_seen.replace(/\.\d{3}Z$/, 'Z'));
      expect(row[8]).toBe(o.last_seen.replace(/\.\d{3}Z$/, 'Z'));
      expect(row[9]).toBe(String(o.total_sessions));
      expect(row[10]).toBe(String(o.total_pageviews));
      expect(row[11]).toBe(o.total_time_on_site);
      expect(row[12]).toBe(String(o.unique_visitor_count));
      expect(row[13]).toBe(safe(o.tags.join('; ')));
      expect(row[15]).toBe(String(o.score));
      expect(row[16]).toBe(o.status);
      expect(row[17]).toBe(o.owner?.email ?? '');
      expect(row[18]).toBe(String(o.custom_fields.tier ?? ''));
      expect(row[20]).toBe(`${PUBLIC_URL}/w/${ws}/organisations/${o.uuid}`);
    });
    const byName = new Map(rows.map((row) => [row[0], row]));
    // Comma, quote, line break and non-ASCII arrive whole; formulas are defused with '.
    expect(byName.get('Comma, Inc.')?.[1]).toBe('comma.example');
    expect(byName.get('Comma, Inc.')?.[19]).toBe('-5'); // a number stays a number
    expect(byName.get('Comma, Inc.')?.[18]).toBe('Gold, "A"');
    expect(byName.has('The "Quote" Ltd')).toBe(true);
    expect(byName.has('Line\nBreak GmbH')).toBe(true);
    expect(byName.get('Société Générale — Zürich')?.[6]).toBe('Zürich');
    expect(byName.has(`'=HYPERLINK("http://x.example","click")`)).toBe(true);
    expect(byName.has(`'@SUM(A1:A2)`)).toBe(true);
    expect(byName.has(`'+49 Trading`)).toBe(true);
    expect(byName.has(`'-Minus AG`)).toBe(true);
  });

  it('leaves no formula after a `;` or `,` for spreadsheets that split on them (contract §15)', async () => {
    const organisations = await csv(`/v1/workspaces/${ws}/organisations.csv`, token);
    const names = organisations.rows.slice(1).map((row) => row[0]);
    expect(names).toContain(`safe;'=HYPERLINK("http://x.example","click")`);
    expect(names).toContain(`x,'@SUM(1)`);
    // Quoted too, so a spreadsheet that splits on `;` keeps the cell whole.
    expect(organisations.text).toContain(`"safe;'=HYPERLINK(""http://x.example"",""click"")"`);
    expect(formulas(organisations.rows)).toEqual([]);
    const sessions = await csv(
      `/v1/workspaces/${ws}/sessions.csv?date_from=2026-05-01&date_to=2026-05-04`,
      token,
    );
    expect(sessions.rows.length).toBeGreaterThan(1);
    expect(formulas(sessions.rows)).toEqual([]);
  });

  it('takes the list’s filters: name, dates, segment and ad hoc filters', async () => {
    const segment = (
      await api('POST', `/v1/workspaces/${ws}/segments`, {
        name: 'Software',
        filters: {
          operator: 'AND',
          conditions: [{ field: 'industry', comparison: 'equal', value: 'Software' }],
        },
      })
    ).body.uuid as string;
    const cases: [string, string][] = [
      ['name=g', 'name=g'],
      ['date_from=2026-05-02&date_to=2026-05-03', 'date_from=2026-05-02&date_to=2026-05-03'],
      [`segmentUuid=${segment}`, `segmentUuid=${segment}`],
    ];
    for (const [listQuery, csvQuery] of cases) {
      const list = (await api('GET', `/v1/workspaces/${ws}/organisations?size=100&${listQuery}`))
        .body.data as { name: string }[];
      const file = await csv(`/v1/workspaces/${ws}/organisations.csv?${csvQuery}`, token);
      expect(
        file.rows.slice(1).map((row) => row[0]),
        csvQuery,
      ).toEqual(list.map((o) => safe(o.name)));
      expect(list.length).toBeGreaterThan(0);
    }
    const filters = {
      operator: 'OR',
      conditions: [
        { field: 'tag', comparison: 'equal', value: 'Target' },
        { field: 'country', comparison: 'equal', value: 'CH' },
      ],
    };
    const adHoc = (await api('POST', `/v1/workspaces/${ws}/organisations?size=100`, { filters }))
      .body.data as { name: string }[];
    const file = await csv(
      `/v1/workspaces/${ws}/organisations.csv?filters=${encodeURIComponent(JSON.stringify(filters))}`,
      token,
    );
    expect(file.rows.slice(1).map((row) => row[0])).toEqual(adHoc.map((o) => safe(o.name)));
    expect(adHoc.map((o) => o.name).sort()).toEqual(['Comma, Inc.', 'Société Générale — Zürich']);
    // The list takes the same `filters` and a `tag`, ANDed with its other parameters.
    const encoded = encodeURIComponent(JSON.stringify(filters));
    const listed = (
      await api('GET', `/v1/workspaces/${ws}/organisations?size=100&filters=${encoded}`)
    ).body.data as { name: string }[];
    expect(listed.map((o) => o.name)).toEqual(adHoc.map((o) => o.name));
    const tagged = (
      await api('GET', `/v1/workspaces/${ws}/organisations?size=100&tag=target&name=comma`)
    ).body;
    expect(tagged.data.map((o: { name: string }) => o.name)).toEqual(['Comma, Inc.']);
    const taggedCsv = await csv(
      `/v1/workspaces/${ws}/organisations.csv?tag=target&name=comma`,
      token,
    );
    expect(taggedCsv.rows.slice(1).map((row) => row[0])).toEqual(['Comma, Inc.']);
    expect((await api('GET', `/v1/workspaces/${ws}/organisations?filters=nope`)).status).toBe(422);
    // Bad input: the contract's 4xx, never a half-written file.
    expect(
      (await csv(`/v1/workspaces/${ws}/organisations.csv?filters=not-json`, token)).status,
    ).toBe(422);
    expect(
      (
        await csv(
          `/v1/workspaces/${ws}/organisations.csv?filters=${encodeURIComponent('{"operator":"AND","conditions":[{"field":"nope","comparison":"equal","value":1}]}')}`,
          token,
        )
      ).status,
    ).toBe(422);
    expect(
      (
        await csv(
          `/v1/workspaces/${ws}/organisations.csv?segmentUuid=${crypto.randomUUID()}`,
          token,
        )
      ).status,
    ).toBe(404);
    expect((await csv(`/v1/workspaces/${ws}/organisations.csv?date_from=May`, token)).status).toBe(
      422,
    );
    expect((await csv(`/v1/workspaces/${ws}/organisations.csv`)).status).toBe(401);
  });

  it('exports sessions row by row as the sessions list shows them', async () => {
    const segment = (
      await api('POST', `/v1/workspaces/${ws}/segments`, {
        name: 'Software or Finance',
        filters: {
          operator: 'AND',
          conditions: [{ field: 'industry', comparison: 'in', value: ['Software', 'Finance'] }],
        },
      })
    ).body.uuid as string;
    for (const query of [
      'date_from=2026-05-01&date_to=2026-05-04',
      'date_from=2026-05-01&date_to=2026-05-04&url=plan%3D3',
      'date=2026-05-02',
      `date_from=2026-05-01&date_to=2026-05-03&segmentUuid=${segment}`,
      'date_from=2026-05-01&date_to=2026-05-04&referrer=google',
    ]) {
      const list = (await api('GET', `/v1/workspaces/${ws}/sessions?size=100&${query}`)).body;
      const file = await csv(`/v1/workspaces/${ws}/sessions.csv?${query}`, token);
      expect(file.status).toBe(200);
      const [header, ...rows] = file.rows;
      expect(header?.slice(0, 12)).toEqual([
        'Started at',
        'Ended at',
        'Duration',
        'Organisation',
        'Domain',
        'Country',
        'City',
        'Source',
        'Referrer',
        'Landing page',
        'Pages',
        'Page views',
      ]);
      expect(rows.length, query).toBe(list.total);
      expect(rows.length).toBeGreaterThan(0);
      const organisations = new Map(
        (
          (await api('GET', `/v1/workspaces/${ws}/organisations?size=100`)).body.data as {
            uuid: string;
            name: string;
          }[]
        ).map((o) => [o.uuid, o.name]),
      );
      rows.forEach((row, i) => {
        const s = list.data[i] as {
          uuid: string;
          visitor_uuid: string;
          organisation_uuid: string;
          started_at: string;
          ended_at: string;
          source: string;
          referrer: string;
          browser: string;
          device_type: string;
          views: { url: string }[];
          location: { country: string; city: string };
        };
        expect(row[0]).toBe(s.started_at.replace(/\.\d{3}Z$/, 'Z'));
        expect(row[1]).toBe(s.ended_at.replace(/\.\d{3}Z$/, 'Z'));
        expect(row[3]).toBe(safe(organisations.get(s.organisation_uuid) ?? ''));
        expect(row[5]).toBe(s.location.country);
        expect(row[6]).toBe(s.location.city);
        expect(row[13]).toBe(s.browser);
        expect(row[14]).toBe(s.device_type);
        expect(row[17]).toBe(`${PUBLIC_URL}/w/${ws}/organisations/${s.organisation_uuid}`);
        expect(row[7]).toBe(s.source);
        expect(row[8]).toBe(s.referrer);
        expect(row[9]).toBe(s.views[0]?.url);
        expect(row[10]).toBe(s.views.map((v) => v.url).join('\n'));
        expect(row[11]).toBe(String(s.views.length));
        expect(row[15]).toBe(s.visitor_uuid);
        expect(row[16]).toBe(s.uuid);
      });
    }
  });

  it('streams every session exactly once across many batches, and a member may export', async () => {
    const workspace = (await api('POST', '/v1/workspaces', { url: 'https://big.example' })).body
      .data;
    const db = t.database.db;
    await sql`INSERT INTO organisations (workspace_id, id, domain, name)
      SELECT ${workspace.uuid}, gen_random_uuid(), 'org-' || i || '.example', 'Org ' || i
      FROM generate_series(1, 40) i`.execute(db);
    // 2,600 sessions, many sharing a start time, so the batches' boundaries fall in ties.
    await sql`INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
        source, country, city, browser, device_type, pageviews, ended_notified)
      SELECT ${workspace.uuid}, gen_random_uuid(), gen_random_uuid(), o.id,
        timestamp '2026-05-01 00:00:00+00' + make_interval(secs => (i % 700) * 60) + interval '0.123456 seconds',
        timestamp '2026-05-01 00:30:00+00' + make_interval(secs => (i % 700) * 60),
        'direct', 'DE', 'Berlin', 'Chrome', 'desktop', 0, true
      FROM generate_series(1, 2600) i
      JOIN (SELECT id, row_number() OVER (ORDER BY id) AS n FROM organisations
            WHERE workspace_id = ${workspace.uuid}) o ON o.n = 1 + i % 40`.execute(db);
    const member = await person(t, 'member@example.com');
    const invite = await api('POST', `/v1/workspaces/${workspace.uuid}/users/invite`, {
      email: member.email,
    });
    const secret = String(invite.body.data.invite_link).split('/').pop();
    expect((await member.browser('POST', `/auth/invites/${secret}/accept`, {})).status).toBe(204);
    const file = await csv(`/v1/workspaces/${workspace.uuid}/sessions.csv`, member.token);
    expect(file.status).toBe(200);
    const ids = file.rows.slice(1).map((row) => row[16]);
    expect(ids.length).toBe(2600);
    expect(new Set(ids).size).toBe(2600);
    const starts = file.rows.slice(1).map((row) => row[0] as string);
    expect([...starts].sort().reverse()).toEqual(starts);
    const orgs = await csv(`/v1/workspaces/${workspace.uuid}/organisations.csv`, member.token);
    expect(orgs.rows.length - 1).toBe(40);
    expect(orgs.rows.slice(1).reduce((sum, row) => sum + Number(row[9]), 0)).toBe(2600);
  });

  it('holds no connection while a client stalls or after it goes away', async () => {
    const workspace = (await api('POST', '/v1/workspaces', { url: 'https://stall.example' })).body
      .data;
    const db = t.database.db;
    await sql`INSERT INTO organisations (workspace_id, id, domain, name)
      VALUES (${workspace.uuid}, gen_random_uuid(), 'stall.example', 'Stall Ltd')`.execute(db);
    // About 9 MB of CSV: more than the socket buffers between server and client hold.
    await sql`INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
        source, country, city, browser, device_type, pageviews, ended_notified)
      SELECT ${workspace.uuid}, gen_random_uuid(), gen_random_uuid(), o.id,
        timestamp '2026-05-01 00:00:00+00' + make_interval(secs => i),
        timestamp '2026-05-01 00:30:00+00' + make_interval(secs => i),
        'direct', 'DE', 'Berlin', 'Chrome', 'desktop', 0, true
      FROM generate_series(1, 30000) i, organisations o
      WHERE o.workspace_id = ${workspace.uuid}`.execute(db);
    const path = `/v1/workspaces/${workspace.uuid}/sessions.csv`;
    // Connections of this database that run a query or sit in a transaction, seen 5 times
    // in a row (a moment between two batches is not enough).
    let quiet = 0;
    let busy: unknown[] = [];
    const idle = async () => {
      const { rows } = await sql`SELECT state, left(query, 100) AS query FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (state LIKE 'idle in transaction%' OR state = 'active')`.execute(db);
      busy = rows;
      quiet = rows.length === 0 ? quiet + 1 : 0;
      return quiet >= 5;
    };
    // A wait that runs out says what still held a connection.
    const untilIdle = (ms: number) =>
      until(idle, ms).catch((error: Error) => {
        throw new Error(`${error.message}; still busy: ${JSON.stringify(busy)}`);
      });
    // More stalled downloads than the pool has connections (10).
    const stalled = await Promise.all(Array.from({ length: 12 }, () => stall(path, token)));
    try {
      // Each export writes until the client's buffers are full, then waits without a
      // connection: no query running, no transaction left open. Twelve exports filling
      // their buffers took up to 85 s on a slow shared machine, and over 150 s on a slower
      // one beside the other test files.
      await untilIdle(300_000);
      for (const { response } of stalled) expect(response.complete).toBe(false); // mid-file
      for (let i = 0; i < 15; i++) {
        expect((await api('GET', `/v1/workspaces/${ws}/organisations?size=1`)).status).toBe(200);
      }
    } finally {
      for (const { request } of stalled) request.destroy();
    }
    quiet = 0;
    await untilIdle(150_000);
    const whole = await csv(path, token);
    expect(whole.rows.length - 1).toBe(30000);
    expect(new Set(whole.rows.slice(1).map((row) => row[16])).size).toBe(30000);
  }, 600_000);
});

/** Starts a download and stops reading after its first chunk, as a stalled client does. */
function stall(path: string, token: string) {
  return new Promise<{ request: ClientRequest; response: IncomingMessage }>((resolve, reject) => {
    const request = httpGet(
      `${t.url}${path}`,
      { headers: { authorization: `Bearer ${token}` } },
      (response) => {
        response.once('data', () => {
          response.pause();
          resolve({ request, response });
        });
      },
    );
    request.on('error', reject);
  });
}
