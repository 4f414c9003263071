// npm run bench (third part): segments over 10,000 organisations and 200,000 sessions.
// Times, through the real HTTP API: computing a three-condition segment's membership
// (POST, then PATCH with new filters), a segmentUuid-filtered session page against the
// unfiltered page, and an ad hoc organisation search. Medians of several runs.
import { sql } from 'kysely';
import { drainQueue } from '../src/segments/worker.js';
import { benchApi } from './lib/api.js';

const ORGANISATIONS = Number(process.env.BENCH_ORGANISATIONS ?? 10_000);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

const { db, call, done } = await benchApi();

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
async function timed(label: string, run: () => Promise<number>) {
  await run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await run());
  const ms = median(times);
  console.log(
    `${label}: median ${ms.toFixed(1)} ms (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)}, ${RUNS} runs)`,
  );
  return ms;
}

// The data, written by SQL: profiles, organisations, sessions over 90 days, page views.
const ws = (
  (await call('POST', '/v1/workspaces', { url: 'https://bench.example' })).json.data as {
    uuid: string;
  }
).uuid;
const seeding = performance.now();
await sql`
  INSERT INTO companies (domain, name, industry, size, address)
  SELECT 'company-' || i || '.com', 'Company ' || i,
    (ARRAY['Software','Manufacturing','Retail','Finance','Healthcare','Logistics'])[1 + i % 6],
    (ARRAY['1-10','11-50','51-200','201-500','501-1000','1001-5000','5001+'])[1 + i % 7],
    jsonb_build_object('country', (ARRAY['DE','GB','FR','US','NL','AT','CH','SE'])[1 + i % 8])
  FROM generate_series(1, ${ORGANISATIONS}) i`.execute(db);
await sql`
  INSERT INTO organisations (workspace_id, id, domain, created_at)
  SELECT ${ws}, gen_random_uuid(), 'company-' || i || '.com', now() - interval '120 days'
  FROM generate_series(1, ${ORGANISATIONS}) i`.execute(db);
await sql`
  INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
    referrer, country, city, browser, device_type, pageviews, ended_notified)
  SELECT ${ws}, gen_random_uuid(), gen_random_uuid(), o.id, t.at,
    t.at + make_interval(secs => (hashint4(i * 3) & 2147483647) % 1800),
    (ARRAY['', 'https://www.google.com/', 'https://www.linkedin.com/', ''])[1 + i % 4],
    'DE', 'Berlin', 'Chrome', 'desktop', 1 + i % 6, true
  FROM generate_series(1, ${SESSIONS}) i
  CROSS JOIN LATERAL (SELECT now() - make_interval(secs => (hashint4(i * 7) & 2147483647) % (90 * 86400)) AS at) t
  JOIN (SELECT id, row_number() OVER (ORDER BY id) AS n FROM organisations WHERE workspace_id = ${ws}) o
    ON o.n = 1 + (hashint4(i) & 2147483647) % ${ORGANISATIONS}`.execute(db);
await sql`
  INSERT INTO events (workspace_id, session_id, type, ts, url, attributed)
  SELECT s.workspace_id, s.id, 'pageview', s.started_at + make_interval(secs => v * 30),
    'https://bench.example/' || (ARRAY['','pricing','product','blog/post-' || v,'careers','docs'])[1 + (v + hashtext(s.id::text) & 2147483647) % 6],
    s.organisation_id IS NOT NULL
  FROM sessions s CROSS JOIN LATERAL generate_series(1, s.pageviews) v
  WHERE s.workspace_id = ${ws}`.execute(db);
await sql`ANALYZE`.execute(db);
const counted = await sql<{ sessions: number; events: number }>`
  SELECT (SELECT count(*) FROM sessions)::int AS sessions, (SELECT count(*) FROM events)::int AS events`.execute(
  db,
);
console.log(
  `data: ${ORGANISATIONS} organisations, ${counted.rows[0]?.sessions} sessions, ${counted.rows[0]?.events} page views (seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s)`,
);

const threeConditions = (days: number) => ({
  operator: 'AND',
  conditions: [
    { field: 'industry', comparison: 'equal', value: 'Software' },
    { field: 'country', comparison: 'in', value: ['DE', 'AT', 'CH'] },
    { field: 'last_seen', comparison: 'less_than_x_units_ago', value: days, unit: 'days' },
  ],
});
const withUrl = (visits: number) => ({
  operator: 'AND',
  conditions: [
    { field: 'url', comparison: 'contains', value: '/pricing' },
    { field: 'sessions', comparison: 'greater_than', value: visits },
    {
      operator: 'OR',
      conditions: [
        { field: 'size', comparison: 'in', value: ['1001-5000', '5001+'] },
        { field: 'industry', comparison: 'equal', value: 'Finance' },
      ],
    },
  ],
});

const created = await call('POST', `/v1/workspaces/${ws}/segments`, {
  name: 'Software in DACH, recent',
  filters: threeConditions(30),
});
const segment = (created.json as { uuid: string }).uuid;
const members = async () =>
  Number(
    (
      await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM segment_members WHERE segment_id = ${segment}`.execute(db)
    ).rows[0]?.n,
  );
console.log(
  `three-condition segment created (first membership): ${created.ms.toFixed(1)} ms, ${await members()} members`,
);
let flip = 0;
const membership = await timed(
  'three-condition segment membership (PATCH filters, computed again)',
  async () => {
    flip += 1;
    return (
      await call('PATCH', `/v1/workspaces/${ws}/segments/${segment}`, {
        filters: threeConditions(flip % 2 ? 29 : 30),
      })
    ).ms;
  },
);
let urlFlip = 0;
const urlSegment = (
  (await call('POST', `/v1/workspaces/${ws}/segments`, { name: 'Pricing', filters: withUrl(20) }))
    .json as {
    uuid: string;
  }
).uuid;
const urlMembership = await timed(
  'url + sessions + (size OR industry) segment membership',
  async () => {
    urlFlip += 1;
    return (
      await call('PATCH', `/v1/workspaces/${ws}/segments/${urlSegment}`, {
        filters: withUrl(urlFlip % 2 ? 19 : 20),
      })
    ).ms;
  },
);

const day = (offset: number) =>
  new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
const range = `date_from=${day(30)}&date_to=${day(0)}`;
const unfiltered = await timed(
  'session page, last 30 days, unfiltered',
  async () => (await call('GET', `/v1/workspaces/${ws}/sessions?${range}`)).ms,
);
const filtered = await timed(
  'session page, last 30 days, segmentUuid',
  async () =>
    (await call('GET', `/v1/workspaces/${ws}/sessions?${range}&segmentUuid=${segment}`)).ms,
);
const adHoc = await timed(
  'ad hoc organisation search (POST organisations), three conditions',
  async () =>
    (await call('POST', `/v1/workspaces/${ws}/organisations`, { filters: threeConditions(30) })).ms,
);

// The worker's share of the collector's changes: organisations queued, evaluated in a batch.
const queued = async (n: number) => {
  await sql`INSERT INTO segment_queue (workspace_id, organisation_id)
    SELECT workspace_id, id FROM organisations WHERE workspace_id = ${ws}
    ORDER BY random() LIMIT ${n}`.execute(db);
  const started = performance.now();
  await drainQueue({ db, failed: (failure) => console.error('segment failed', failure) });
  return performance.now() - started;
};
const drained = await timed('1,000 queued organisations evaluated against both segments', () =>
  queued(1000),
);

console.log('');
console.log(
  `membership: ${membership.toFixed(0)} ms (target ≤ 500), with url: ${urlMembership.toFixed(0)} ms`,
);
console.log(
  `segment session page: ${filtered.toFixed(0)} ms (target ≤ 200); ratio to the unfiltered page ${(filtered / unfiltered).toFixed(2)}`,
);
console.log(`ad hoc search page: ${adHoc.toFixed(0)} ms`);
console.log(`worker batch of 1,000 organisations × 2 segments: ${drained.toFixed(0)} ms`);

await done();
