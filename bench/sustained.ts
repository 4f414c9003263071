// npm run bench: the sustainable throughput of the collector and its workers (contract §19),
// as a ratio to the bare endpoint measured in the same run.
//
// For each load (BENCH_LOADS, as bench/collector.ts), the bare 204 endpoint is driven closed
// loop (BENCH_CONNECTIONS, 50) for its rate. Then requests are offered open loop at a fixed
// rate for BENCH_STEP_SECONDS (60), a connection per 4 requests a second (up to 1,000), so an
// answer may take 250 ms without the rate falling short. A step passes when the offered rate
// was delivered (97 %), every answer was 202, the processing lag stayed at p99 ≤ 2 s and the
// backlog did not grow (the inbox is empty again within 2 s of the step's end). The lag is
// sampled every 250 ms: the age of the oldest unprocessed request (as
// footfall_ingest_lag_seconds, but from the oldest row of each lane rather than a sum over
// the inbox, which costs the more the larger the backlog), or, for a version that
// processes before it answers, the answer's own time. After 15 s of warm-up (not reported),
// the rate starts at BENCH_START_RATIO (0.02) of the bare rate, grows by half while steps
// pass (or halves while they fail), then is bisected BENCH_BISECT (2) times between a pass
// and a failure.
//
// BENCH_AGAINST=<another checkout>: that version (A) and this one (B) take the loads in turn
// (A then B per load), each over a database of its own. BENCH_WORKERS=N runs N worker
// processes beside a collector (bench/server.ts); a version without roles ignores it.

import path from 'node:path';
import autocannon from 'autocannon';
import {
  type BenchServer,
  CONNECTIONS,
  chosenLoads,
  drive,
  type Load,
  startBenchServer,
} from './lib/collector-loads.js';

const STEP_S = Number(process.env.BENCH_STEP_SECONDS ?? 60);
const START_RATIO = Number(process.env.BENCH_START_RATIO ?? 0.02);
const BISECT = Number(process.env.BENCH_BISECT ?? 2);
const BARE_S = 10;
const WARM_UP_S = 15;
const LAG_LIMIT_S = 2;
// Enough connections that a fixed rate is kept however slow an answer (open loop).
const OPEN_CONNECTIONS = 1_000;

interface Version {
  name: string;
  root: string;
  server: BenchServer;
}

const against = process.env.BENCH_AGAINST;
const versions: Version[] = [];
if (against) {
  const root = path.resolve(against);
  versions.push({ name: 'A', root, server: await startBenchServer(root) });
}
versions.push({
  name: against ? 'B' : 'this',
  root: process.cwd(),
  server: await startBenchServer(),
});
for (const { name, root } of versions) console.log(`${name}: ${root}`);
console.log(
  `steps of ${STEP_S} s, lag p99 ≤ ${LAG_LIMIT_S} s, workers: ${process.env.BENCH_WORKERS ?? 'in the server'}\n`,
);

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
};

interface Step {
  rate: number;
  delivered: number;
  failed: number;
  lagP99: number;
  drainedS: number;
  passed: boolean;
  lost: number;
}

/** Offers `rate` requests per second for STEP_S, open loop; what it showed. */
async function step(
  server: BenchServer,
  load: Load,
  rate: number,
  seconds = STEP_S,
): Promise<Step> {
  const script = load.fresh ? server.freshScript : server.script;
  const workspace = load.fresh ? server.freshWorkspace : server.workspace;
  const before = await server.count('events', workspace);
  const lags: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const lag = await server.lag().catch(() => null);
      if (lag !== null) lags.push(lag);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${server.url}/t/collect`,
        method: 'POST',
        connections: Math.min(OPEN_CONNECTIONS, Math.max(10, Math.ceil(rate / 4))),
        overallRate: rate,
        duration: seconds,
        timeout: 30,
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              body: load.body(script),
              headers: {
                ...request.headers,
                'user-agent':
                  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
                ...(load.from ? { 'x-forwarded-for': load.from() } : {}),
              },
            }),
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('error', reject);
  });
  sampling = false;
  await sampler;
  // The backlog must not have grown: empty again within the lag limit after the step.
  const ended = performance.now();
  while ((await server.waiting()) && performance.now() - ended < 120_000) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const drainedS = (performance.now() - ended) / 1000;
  // A version that processes before it answers: its lag is the answer's time.
  const lagP99 = lags.length > 0 ? percentile(lags, 99) : result.latency.p99 / 1000;
  const stored = (await server.count('events', workspace)) - before;
  const delivered = result['2xx'] / seconds;
  const failed = result.non2xx + result.errors + result.timeouts;
  const passed =
    failed === 0 &&
    delivered >= rate * 0.97 &&
    lagP99 <= LAG_LIMIT_S &&
    (lags.length === 0 || drainedS <= LAG_LIMIT_S);
  return {
    rate,
    delivered,
    failed,
    lagP99,
    drainedS,
    passed,
    lost: Math.max(0, result['2xx'] * load.events - stored),
  };
}

let lost = 0;
const summary: string[] = [];
for (const load of chosenLoads()) {
  for (const version of versions) {
    const { server } = version;
    const script = load.fresh ? server.freshScript : server.script;
    const bare = (await drive(`${server.url}/bench/bare`, load, script, BARE_S)).requests.average;
    console.log(
      `\n### ${load.name}, ${version.name}: bare endpoint ${Math.round(bare)} req/s (${CONNECTIONS} connections)\n`,
    );
    console.log(
      '| offered req/s | delivered | not 2xx | lag p99 s | empty after s | lost | passed |',
    );
    console.log('|---|---|---|---|---|---|---|');
    const report = (s: Step) => {
      lost += s.lost;
      console.log(
        `| ${Math.round(s.rate)} | ${Math.round(s.delivered)} | ${s.failed} | ${s.lagP99.toFixed(2)} | ${s.drainedS.toFixed(1)} | ${s.lost} | ${s.passed ? 'yes' : 'no'} |`,
      );
    };
    let good = 0;
    let bad = Number.POSITIVE_INFINITY;
    let rate = Math.max(10, bare * START_RATIO);
    // Warm-up, not reported: caches, prepared statements and the JIT, as a running server has.
    await step(server, load, rate, WARM_UP_S);
    // Up by half while steps pass (down by half while the first ones fail), then bisected.
    for (;;) {
      const result = await step(server, load, rate);
      report(result);
      if (result.passed) {
        good = rate;
        if (bad < Number.POSITIVE_INFINITY) break;
        rate *= 1.5;
      } else {
        bad = rate;
        if (good > 0 || rate < 20) break;
        rate /= 2;
      }
    }
    for (let i = 0; i < BISECT && good > 0; i++) {
      rate = (good + bad) / 2;
      const result = await step(server, load, rate);
      report(result);
      if (result.passed) good = rate;
      else bad = rate;
    }
    const line = `${load.name}, ${version.name}: sustainable ${Math.round(good)} req/s, ${(good / bare).toFixed(3)} of the bare endpoint (${Math.round(bare)} req/s)`;
    console.log(`\n${line}`);
    summary.push(line);
  }
}
for (const { server } of versions) await server.stop();
console.log(`\n${summary.join('\n')}`);
console.log(`\nnothing acknowledged lost: ${lost === 0 ? 'yes' : `no, ${lost} events`}`);
if (lost > 0) process.exitCode = 1;
