// npm run bench: the collector in three loads, each against a bare 204 endpoint in the same
// run, on real PostgreSQL. DATABASE_URL is used when set; otherwise an embedded PostgreSQL
// in a temporary directory.
//   new visitors: every request is a visitor's first, with a page view and an identify()
//     naming a company domain never seen: it starts a session and creates an organisation;
//   repeat visitors: one page view from one of 5,000 visitors of a known organisation;
//   unnamed visitors: the same from 5,000 public addresses of a carrier that nothing names,
//     with online lookups on and a DNS server and registry that never answer: every visit
//     goes to the background lookup queue, which must not slow the answer.
// BENCH_LOADS picks loads by name; bench/collector-ab.ts compares two versions.
// BENCH_WORKERS=N runs the collector (role `collector`) and N worker processes apart; after
// each run it waits until the inbox is empty and reports the CPU per fully processed request.
// BENCH_ACK_ALONE=1 (with BENCH_WORKERS): the workers are stopped while the collector is
// measured, as with collectors and workers on machines of their own, and drain the inbox after.

import type autocannon from 'autocannon';
import {
  CONNECTIONS,
  chosenLoads,
  drained,
  drive,
  startBenchServer,
} from './lib/collector-loads.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 15);
const ACK_ALONE = process.env.BENCH_ACK_ALONE === '1' && Number(process.env.BENCH_WORKERS) > 0;
const WARM_UP_S = Math.min(3, DURATION_S);

const loads = chosenLoads();
const server = await startBenchServer();
console.log(
  `${CONNECTIONS} connections, ${DURATION_S} s per run after ${WARM_UP_S} s of warm-up; body bytes: ` +
    loads.map((load) => `${load.name} ~${Buffer.byteLength(load.body(server.script))}`).join(', '),
);
const line = (name: string, r: autocannon.Result) =>
  `| ${name} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${r['2xx']} | ${r.non2xx + r.errors + r.timeouts} |`;
let lost = 0;
for (const load of loads) {
  const script = load.fresh ? server.freshScript : server.script;
  const workspace = load.fresh ? server.freshWorkspace : server.workspace;
  await drive(`${server.url}/bench/bare`, load, script, WARM_UP_S);
  const bareCpu = server.cpu().collector;
  const bare = await drive(`${server.url}/bench/bare`, load, script, DURATION_S);
  const bareCpuPerRequest =
    bareCpu === null ? null : (((server.cpu().collector ?? 0) - bareCpu) / bare['2xx']) * 1000;
  await drive(`${server.url}/t/collect`, load, script, WARM_UP_S);
  // The warm-up's events are counted as stored before, so they must be stored by then.
  await drained(server);
  if (ACK_ALONE) await server.workers('stop');
  const before = {
    events: await server.count('events', workspace),
    sessions: await server.count('sessions', workspace),
    organisations: await server.count('organisations', workspace),
    metrics: await server.metrics(),
    cpu: server.cpu(),
  };
  const collect = await drive(`${server.url}/t/collect`, load, script, DURATION_S);
  const acknowledgedCpu = server.cpu();
  // Acknowledged is not yet processed (contract §19): the workers drain the inbox.
  const drainStarted = performance.now();
  if (ACK_ALONE) await server.workers('start');
  await drained(server);
  const drainSeconds = (performance.now() - drainStarted) / 1000;
  const cpu = server.cpu();
  const stored = (await server.count('events', workspace)) - before.events;
  const after = await server.metrics();
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
    `new sessions: ${(await server.count('sessions', workspace)) - before.sessions}, new organisations: ${
      (await server.count('organisations', workspace)) - before.organisations
    }`,
  );
  const perRequest = (at: 'server' | 'collector' | 'database', until = cpu) => {
    const [from, to] = [before.cpu[at], until[at]];
    return from === null || to === null
      ? 'not measured'
      : `${(((to - from) / collect['2xx']) * 1000).toFixed(3)} ms`;
  };
  console.log(
    `backlog after the run drained in ${drainSeconds.toFixed(1)} s: processed ${(collect['2xx'] / (DURATION_S + drainSeconds)).toFixed(0)} requests/s over the run and the drain`,
  );
  console.log(
    `CPU per request until acknowledged: server ${perRequest('server', acknowledgedCpu)} (its own process ${perRequest('collector', acknowledgedCpu)}; the bare endpoint's ${bareCpuPerRequest?.toFixed(3) ?? '?'} ms), database ${perRequest('database', acknowledgedCpu)}`,
  );
  console.log(
    `CPU per fully processed request: server ${perRequest('server')}, database ${perRequest('database')}`,
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
const lookups = [...(await server.metrics()).entries()].filter(
  ([name, value]) => name.startsWith('footfall_lookup') && value > 0,
);
if (lookups.length > 0) {
  console.log(`\nbackground lookups: ${lookups.map(([n, v]) => `${n} ${v}`).join(', ')}`);
}
await server.stop();
console.log(`\nnothing acknowledged lost: ${lost === 0 ? 'yes' : `no, ${lost} events`}`);
if (lost > 0) process.exitCode = 1;
