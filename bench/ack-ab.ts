// The acknowledgement alone, two versions side by side, for the ratio of issue "ingest at
// scale" on a noisy machine:
//   BENCH_AGAINST=<another checkout> npx tsx bench/ack-ab.ts
// starts bench/server.ts of that checkout ("A") and of this one ("B"), each a collector with
// one worker process (BENCH_WORKERS=1) over a database of its own. The workers are stopped
// while a version is measured (collectors and workers on machines of their own) and drain
// the inbox between rounds. Per load and round, in slices of BENCH_SLICE_SECONDS (4), ABBA:
// each version's bare endpoint, then its collect; so every ratio collect ÷ bare is of two
// slices a few seconds apart. Reports the medians over BENCH_ROUNDS (6) of each version's
// ratio, of B ÷ A, and of the collector process's CPU per acknowledged request.

import path from 'node:path';
import {
  type BenchServer,
  chosenLoads,
  drained,
  drive,
  type Load,
  startBenchServer,
} from './lib/collector-loads.js';

const against = process.env.BENCH_AGAINST;
if (!against) throw new Error('BENCH_AGAINST: the path of the checkout to compare with');
process.env.BENCH_WORKERS ??= '1';
const SLICE_S = Number(process.env.BENCH_SLICE_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const WARM_UP_S = 3;

const versions = [
  { name: 'A', server: await startBenchServer(path.resolve(against)) },
  { name: 'B', server: await startBenchServer() },
];
console.log(`A: ${path.resolve(against)}\nB: ${path.resolve(import.meta.dirname, '..')}`);
console.log(`${ROUNDS} rounds of ${SLICE_S} s slices (bare, then collect) per version, ABBA\n`);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

async function processed(server: BenchServer) {
  await server.workers('start');
  await drained(server);
  await server.workers('stop');
}

/** One slice of the bare endpoint then one of collect: their rates and collect's CPU. */
async function slices(server: BenchServer, load: Load) {
  const script = load.fresh ? server.freshScript : server.script;
  const bare = await drive(`${server.url}/bench/bare`, load, script, SLICE_S);
  const cpu = server.cpu().collector ?? 0;
  const collect = await drive(`${server.url}/t/collect`, load, script, SLICE_S);
  const refused = collect.non2xx + collect.errors + collect.timeouts;
  if (refused > 0) throw new Error(`${refused} collect requests were not acknowledged`);
  return {
    bare: bare.requests.average,
    collect: collect.requests.average,
    p99: collect.latency.p99,
    cpuMs: (((server.cpu().collector ?? 0) - cpu) / collect['2xx']) * 1000,
  };
}

console.log('| load | ratio A | ratio B | collect B/A | CPU ms a request, A | B | p99 ms, A | B |');
console.log('|---|---|---|---|---|---|---|---|');
for (const load of chosenLoads()) {
  for (const { server } of versions) {
    const script = load.fresh ? server.freshScript : server.script;
    await drive(`${server.url}/bench/bare`, load, script, WARM_UP_S);
    await drive(`${server.url}/t/collect`, load, script, WARM_UP_S);
    await processed(server);
  }
  const seen = new Map<
    string,
    { ratio: number[]; collect: number[]; cpu: number[]; p99: number[] }
  >(versions.map(({ name }) => [name, { ratio: [], collect: [], cpu: [], p99: [] }]));
  const perRound: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? versions : [...versions].reverse();
    const rates = new Map<string, number>();
    for (const { name, server } of order) {
      const slice = await slices(server, load);
      const tally = seen.get(name);
      tally?.ratio.push(slice.collect / slice.bare);
      tally?.collect.push(slice.collect);
      tally?.cpu.push(slice.cpuMs);
      tally?.p99.push(slice.p99);
      rates.set(name, slice.collect);
    }
    perRound.push((rates.get('B') ?? 0) / (rates.get('A') ?? 1));
    for (const { server } of versions) await processed(server);
  }
  const a = seen.get('A');
  const b = seen.get('B');
  if (!a || !b) throw new Error('no figures');
  console.log(
    `| ${load.name} | ${median(a.ratio).toFixed(2)} | ${median(b.ratio).toFixed(2)} | ${median(perRound).toFixed(2)} | ${median(a.cpu).toFixed(3)} | ${median(b.cpu).toFixed(3)} | ${median(a.p99)} | ${median(b.p99)} |`,
  );
  console.log(
    `  rounds, ratio A: ${a.ratio.map((r) => r.toFixed(2)).join(' ')}; ratio B: ${b.ratio.map((r) => r.toFixed(2)).join(' ')}`,
  );
}
for (const { server } of versions) await server.stop();
process.exit(0);
