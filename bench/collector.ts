// npm run bench: the collector against a bare 204 endpoint, in one run, on real PostgreSQL.
// DATABASE_URL is used when set; otherwise an embedded PostgreSQL in a temporary directory.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { benchDatabase } from './lib/database.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const VISITORS = 5000;
const UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

const visitors = Array.from({ length: VISITORS }, () => randomUUID());
const sessions = visitors.map(() => randomUUID());

/** A ~500-byte text/plain body with one page view, as the tracker sends it. */
function body(script: string): string {
  const i = Math.floor(Math.random() * VISITORS);
  return JSON.stringify({
    tracking_script_id: script,
    anonymous_id: visitors[i],
    session_uuid: sessions[i],
    events: [
      {
        type: 'pageview',
        ts: Date.now(),
        url: `https://www.acme-analytics.example/solutions/enterprise/pricing?utm_source=newsletter&utm_medium=email&utm_campaign=autumn-launch&page=${i}`,
        referrer:
          'https://www.google.com/search?q=b2b+website+visitor+identification+software+pricing',
        title: 'Enterprise pricing — Acme Analytics: know which companies visit your website',
      },
    ],
  });
}

function run(url: string, script: string, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        connections: CONNECTIONS,
        duration: seconds,
        headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA },
        requests: [{ setupRequest: (request) => ({ ...request, body: body(script) }) }],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('error', reject);
  });
}

const db = await benchDatabase();
const server = spawn(
  process.execPath,
  [
    ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    '--import',
    'tsx',
    'bench/server.ts',
  ],
  {
    env: { ...process.env, BENCH_DATABASE_URL: db.url, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
process.on('exit', () => server.kill('SIGKILL'));
// The server's log shares its stdout; its one line of JSON with `script` says it is ready.
const ready = await new Promise<{ url: string; script: string; workspace: string }>((resolve) => {
  const lines = createInterface({ input: server.stdout });
  lines.on('line', (line) => {
    if (line.includes('"script"')) {
      lines.close();
      resolve(JSON.parse(line));
    }
  });
});
server.stdout.resume();

console.log(
  `body bytes: ~${Buffer.byteLength(body(ready.script))}, ${CONNECTIONS} connections, ${DURATION_S} s each`,
);
await run(`${ready.url}/bench/bare`, ready.script, 3); // warm-up
const bare = await run(`${ready.url}/bench/bare`, ready.script, DURATION_S);
await run(`${ready.url}/t/collect`, ready.script, 3); // warm-up
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const count = async () =>
  Number(
    (await client.query('SELECT count(*) FROM events WHERE workspace_id = $1', [ready.workspace]))
      .rows[0].count,
  );
const storedBefore = await count();
const collect = await run(`${ready.url}/t/collect`, ready.script, DURATION_S);
await new Promise((resolve) => setTimeout(resolve, 500)); // requests still in flight at the end
const stored = (await count()) - storedBefore;
const sessionsMade = Number(
  (await client.query('SELECT count(*) FROM sessions WHERE workspace_id = $1', [ready.workspace]))
    .rows[0].count,
);
await client.end();
const metrics = await (await fetch(`${ready.url}/metrics`)).text();
const metric = (name: string) =>
  Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);
const groups = metric('footfall_write_group_events_count');
server.kill('SIGTERM');
await new Promise((resolve) => server.on('exit', resolve));
await db.done();

const acknowledged = collect['2xx'];
const line = (name: string, r: autocannon.Result) =>
  `| ${name} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${r['2xx']} | ${r.non2xx + r.errors + r.timeouts} |`;
console.log('\n| endpoint | req/s | p50 ms | p99 ms | 2xx | other |');
console.log('|---|---|---|---|---|---|');
console.log(line('bare 204', bare));
console.log(line('POST /t/collect', collect));
console.log(
  `\nratio collect/bare: ${(collect.requests.average / bare.requests.average).toFixed(2)}`,
);
console.log(
  `acknowledged events: ${acknowledged}, stored: ${stored}, lost: ${Math.max(0, acknowledged - stored)}`,
);
console.log(`sessions: ${sessionsMade} for ${VISITORS} visitors`);
console.log(
  `group commits: ${groups}, ${(metric('footfall_write_group_events_sum') / groups).toFixed(1)} events and ` +
    `${((metric('footfall_write_group_seconds_sum') / groups) * 1000).toFixed(1)} ms each on average`,
);
