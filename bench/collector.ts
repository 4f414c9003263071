// npm run bench: the collector in two loads, each against a bare 204 endpoint in the same
// run, on real PostgreSQL. DATABASE_URL is used when set; otherwise an embedded PostgreSQL
// in a temporary directory.
//   new visitors: every request is a visitor's first, with a page view and an identify()
//     naming a company domain never seen: it starts a session and creates an organisation;
//   repeat visitors: one page view from one of 5,000 visitors of a known organisation;
//   unnamed visitors: the same from 5,000 public addresses of a carrier that nothing names,
//     with online lookups on and a DNS server and registry that never answer: every visit
//     goes to the background lookup queue, which must not slow the answer.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import dgram from 'node:dgram';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { benchDatabase } from './lib/database.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 15);
const WARM_UP_S = Math.min(3, DURATION_S);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const VISITORS = 5000;
const UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const URL_ =
  'https://www.acme-analytics.example/solutions/enterprise/pricing?utm_source=newsletter&utm_medium=email&utm_campaign=autumn-launch';
const REFERRER =
  'https://www.google.com/search?q=b2b+website+visitor+identification+software+pricing';
const TITLE = 'Enterprise pricing — Acme Analytics: know which companies visit your website';

interface Load {
  name: string;
  /** Events in each request. */
  events: number;
  body(script: string): string;
  /** The visitor's address, sent as X-Forwarded-For; the connection's own when absent. */
  from?: () => string;
}

const visitors = Array.from({ length: VISITORS }, () => randomUUID());
// Chinanet's 1.48.0.0/16: a carrier the network owner names nobody for.
const carrierAddresses = Array.from(
  { length: VISITORS },
  (_, i) => `1.48.${Math.floor(i / 250)}.${(i % 250) + 1}`,
);
const sessions = visitors.map(() => randomUUID());
// Unique across the bare and collect runs, so every collected domain is new.
let domains = 0;
const run = randomUUID().slice(0, 8);

/** One page view from one of the known visitors, in its session. */
function returningVisit(script: string): string {
  const i = Math.floor(Math.random() * VISITORS);
  return JSON.stringify({
    tracking_script_id: script,
    anonymous_id: visitors[i],
    session_uuid: sessions[i],
    events: [
      {
        type: 'pageview',
        ts: Date.now(),
        url: `${URL_}&page=${i}`,
        referrer: REFERRER,
        title: TITLE,
      },
    ],
  });
}

const LOADS: Load[] = [
  {
    name: 'new visitors',
    events: 2,
    body: (script) => {
      const ts = Date.now();
      return JSON.stringify({
        tracking_script_id: script,
        anonymous_id: randomUUID(),
        session_uuid: randomUUID(),
        events: [
          { type: 'pageview', ts, url: URL_, referrer: REFERRER, title: TITLE },
          {
            type: 'identify',
            ts,
            url: URL_,
            email: `buyer@company-${run}-${++domains}.com`,
            traits: { plan: 'enterprise' },
          },
        ],
      });
    },
  },
  { name: 'repeat visitors', events: 1, body: returningVisit },
  {
    name: 'unnamed visitors',
    events: 1,
    body: returningVisit,
    from: () => carrierAddresses[Math.floor(Math.random() * VISITORS)] as string,
  },
];

function drive(
  url: string,
  body: () => string,
  seconds: number,
  from?: () => string,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        connections: CONNECTIONS,
        duration: seconds,
        headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA },
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              body: body(),
              ...(from ? { headers: { ...request.headers, 'x-forwarded-for': from() } } : {}),
            }),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('error', reject);
  });
}

const db = await benchDatabase();
// A DNS server that never answers and a registry port nobody listens on: lookups end only
// at their deadlines or at once, in the background.
const deadDns = dgram.createSocket('udp4');
await new Promise<void>((resolve) => deadDns.bind(0, '127.0.0.1', resolve));
const server = spawn(
  process.execPath,
  [
    ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    '--import',
    'tsx',
    'bench/server.ts',
  ],
  {
    env: {
      ...process.env,
      BENCH_DATABASE_URL: db.url,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      TRUST_PROXY: '127.0.0.1',
      ONLINE_LOOKUPS: 'on',
      DNS_SERVERS: `127.0.0.1:${deadDns.address().port}`,
      RDAP_URL: 'http://127.0.0.1:9/',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
process.on('exit', () => server.kill('SIGKILL'));
// The server's log shares its stdout; its one line of JSON with `script` says it is ready.
const ready = await new Promise<{
  url: string;
  script: string;
  workspace: string;
  freshScript: string;
  freshWorkspace: string;
}>((resolve) => {
  const lines = createInterface({ input: server.stdout });
  lines.on('line', (line) => {
    if (line.includes('"script"')) {
      lines.close();
      resolve(JSON.parse(line));
    }
  });
});
server.stdout.resume();

const client = new pg.Client({ connectionString: db.url });
await client.connect();
const count = async (table: string, workspace: string) =>
  Number(
    (await client.query(`SELECT count(*) FROM ${table} WHERE workspace_id = $1`, [workspace]))
      .rows[0].count,
  );
/** The server's metrics, as name{labels} → value. */
const metrics = async () =>
  new Map(
    (await (await fetch(`${ready.url}/metrics`)).text())
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => {
        const at = line.lastIndexOf(' ');
        return [line.slice(0, at), Number(line.slice(at + 1))] as const;
      }),
  );

console.log(
  `${CONNECTIONS} connections, ${DURATION_S} s per run after ${WARM_UP_S} s of warm-up; body bytes: ` +
    LOADS.map((load) => `${load.name} ~${Buffer.byteLength(load.body(ready.script))}`).join(', '),
);
const line = (name: string, r: autocannon.Result) =>
  `| ${name} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${r['2xx']} | ${r.non2xx + r.errors + r.timeouts} |`;
let lost = 0;
for (const load of LOADS) {
  const fresh = load.name === 'new visitors';
  const script = fresh ? ready.freshScript : ready.script;
  const workspace = fresh ? ready.freshWorkspace : ready.workspace;
  const body = () => load.body(script);
  await drive(`${ready.url}/bench/bare`, body, WARM_UP_S, load.from);
  const bare = await drive(`${ready.url}/bench/bare`, body, DURATION_S, load.from);
  await drive(`${ready.url}/t/collect`, body, WARM_UP_S, load.from);
  const before = {
    events: await count('events', workspace),
    sessions: await count('sessions', workspace),
    organisations: await count('organisations', workspace),
    metrics: await metrics(),
  };
  const collect = await drive(`${ready.url}/t/collect`, body, DURATION_S, load.from);
  await new Promise((resolve) => setTimeout(resolve, 500)); // requests still in flight at the end
  const stored = (await count('events', workspace)) - before.events;
  const after = await metrics();
  const delta = (name: string) => (after.get(name) ?? 0) - (before.metrics.get(name) ?? 0);
  const acknowledged = collect['2xx'] * load.events;
  lost += Math.max(0, acknowledged - stored);

  console.log(`\n### ${load.name}\n`);
  console.log('| endpoint | req/s | p50 ms | p99 ms | 2xx | other |');
  console.log('|---|---|---|---|---|---|');
  console.log(line('bare 204', bare));
  console.log(line('POST /t/collect', collect));
  console.log(
    `\nratio collect/bare: ${(collect.requests.average / bare.requests.average).toFixed(2)}`,
  );
  console.log(
    `acknowledged events: ${acknowledged}, stored: ${stored}, lost: ${Math.max(0, acknowledged - stored)}`,
  );
  console.log(
    `new sessions: ${(await count('sessions', workspace)) - before.sessions}, new organisations: ${
      (await count('organisations', workspace)) - before.organisations
    }`,
  );
  const groups = delta('footfall_write_group_seconds_count');
  console.log(
    `group writes: ${groups}, ${(delta('footfall_write_group_events_sum') / groups).toFixed(1)} requests and ` +
      `${((delta('footfall_write_group_seconds_sum') / groups) * 1000).toFixed(1)} ms each on average; ` +
      `retries ${[...after.keys()].filter((k) => k.startsWith('footfall_write_retries_total')).reduce((s, k) => s + delta(k), 0)}`,
  );
  const phases = [...after.keys()]
    .map((key) => /^footfall_write_phase_seconds_sum\{phase="(\w+)"\}$/.exec(key)?.[1])
    .filter((phase): phase is string => phase !== undefined);
  console.log(
    `phases, ms per group write: ${phases
      .map(
        (phase) =>
          `${phase} ${((delta(`footfall_write_phase_seconds_sum{phase="${phase}"}`) / groups) * 1000).toFixed(2)}`,
      )
      .join(', ')}`,
  );
}
await client.end();
const lookups = [...(await metrics()).entries()].filter(
  ([name, value]) => name.startsWith('footfall_lookup') && value > 0,
);
if (lookups.length > 0) {
  console.log(`\nbackground lookups: ${lookups.map(([n, v]) => `${n} ${v}`).join(', ')}`);
}
server.kill('SIGTERM');
await new Promise((resolve) => server.on('exit', resolve));
await db.done();
deadDns.close();
console.log(`\nnothing acknowledged lost: ${lost === 0 ? 'yes' : `no, ${lost} events`}`);
if (lost > 0) process.exitCode = 1;
