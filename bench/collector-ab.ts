// Two versions of the collector in turn, for before-and-after figures on a noisy machine:
//   BENCH_AGAINST=<another checkout> npx tsx bench/collector-ab.ts
// runs bench/server.ts of that checkout ("A", say a worktree of the commit before a change,
// with its own node_modules) and of this one ("B") at once, each over a database of its
// own. For each load (BENCH_LOADS, as bench/collector.ts), after a warm-up of each, the load
// goes to A and B in turn, in slices of BENCH_SLICE_SECONDS (4), ABBA, for BENCH_ROUNDS (6)
// rounds: a machine that slows down or speeds up during the run weighs on both alike.
// Reports each version's req/s over its slices, B/A overall and the median of the rounds'
// B/A; after each slice it waits until the version's inbox (if it has one) is empty, and
// reports requests processed per second over slices and drains and the CPU per processed
// request; it checks nothing acknowledged was lost.

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
const SLICE_S = Number(process.env.BENCH_SLICE_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const WARM_UP_S = 3;

const versions = [
  { name: 'A', root: path.resolve(against), server: await startBenchServer(path.resolve(against)) },
  { name: 'B', root: process.cwd(), server: await startBenchServer() },
];
console.log(`A: ${versions[0]?.root}\nB: ${versions[1]?.root}`);
console.log(`${ROUNDS} rounds of ${SLICE_S} s slices per version and load, ABBA\n`);

interface Tally {
  acknowledged: number;
  seconds: number;
  /** Seconds after the slices until the inbox was empty (a version that acknowledges first). */
  draining: number;
  events: number;
  server: number;
  database: number;
}

const target = (server: BenchServer, load: Load) => ({
  script: load.fresh ? server.freshScript : server.script,
  workspace: load.fresh ? server.freshWorkspace : server.workspace,
});

let lost = 0;
console.log(
  '| load | A req/s | B req/s | B/A | B/A, median of rounds | processed/s, A | B | CPU ms per processed request, A | B |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const load of chosenLoads()) {
  const tallies = new Map<string, Tally>();
  const stored = new Map<string, number>();
  for (const { name, server } of versions) {
    const { script, workspace } = target(server, load);
    await drive(`${server.url}/t/collect`, load, script, WARM_UP_S);
    await new Promise((resolve) => setTimeout(resolve, 500));
    stored.set(name, await server.count('events', workspace));
    tallies.set(name, {
      acknowledged: 0,
      seconds: 0,
      draining: 0,
      events: 0,
      server: 0,
      database: 0,
    });
  }
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? versions : [...versions].reverse();
    const rates = new Map<string, number>();
    for (const { name, server } of order) {
      const { script } = target(server, load);
      const cpu = server.cpu();
      const started = performance.now();
      const result = await drive(`${server.url}/t/collect`, load, script, SLICE_S);
      const seconds = (performance.now() - started) / 1000;
      // Its backlog processed before the other's slice, which it would otherwise slow down;
      // the CPU of processing counts, as part of the request.
      const drainStarted = performance.now();
      await drained(server);
      const draining = (performance.now() - drainStarted) / 1000;
      const used = server.cpu();
      const tally = tallies.get(name) as Tally;
      tally.acknowledged += result['2xx'];
      tally.seconds += seconds;
      tally.draining += draining;
      tally.server += (used.server ?? 0) - (cpu.server ?? 0);
      tally.database += (used.database ?? 0) - (cpu.database ?? 0);
      rates.set(name, result['2xx'] / seconds);
    }
    ratios.push((rates.get('B') ?? 0) / (rates.get('A') ?? 1));
  }
  for (const { name, server } of versions) {
    await drained(server);
    const tally = tallies.get(name) as Tally;
    const events =
      (await server.count('events', target(server, load).workspace)) - (stored.get(name) ?? 0);
    lost += Math.max(0, tally.acknowledged * load.events - events);
  }
  const a = tallies.get('A') as Tally;
  const b = tallies.get('B') as Tally;
  const rate = (t: Tally) => t.acknowledged / t.seconds;
  const processed = (t: Tally) => t.acknowledged / (t.seconds + t.draining);
  const cpuPerRequest = (t: Tally) =>
    `${((t.server / t.acknowledged) * 1000).toFixed(3)} + ${((t.database / t.acknowledged) * 1000).toFixed(3)}`;
  const median = [...ratios].sort((x, y) => x - y)[Math.floor(ratios.length / 2)] ?? 0;
  console.log(
    `| ${load.name} | ${Math.round(rate(a))} | ${Math.round(rate(b))} | ${(rate(b) / rate(a)).toFixed(2)} | ${median.toFixed(2)} | ${Math.round(processed(a))} | ${Math.round(processed(b))} | ${cpuPerRequest(a)} | ${cpuPerRequest(b)} |`,
  );
}
console.log(
  '\nprocessed/s: acknowledged requests over the slices and the time their backlog took to empty after each; CPU: server + database (embedded only), ms per request, processing included',
);
for (const { server } of versions) await server.stop();
console.log(`nothing acknowledged lost: ${lost === 0 ? 'yes' : `no, ${lost} events`}`);
if (lost > 0) process.exitCode = 1;
