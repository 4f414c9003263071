// Start-up cost of the built server (`node dist/main.js serve`, what `npm start` runs after
// its build): time until /readyz answers, time until the process settles (the reference
// data loaded in the background), and its memory then. Then `npm start` on the unchanged
// checkout against `node dist/main.js serve`, alternating: the time until /readyz answers
// (npm's own start and the build check are all `npm start` adds when nothing changed).
// Usage: tsx bench/startup.ts [DIR] with DIR a built checkout (default: this one);
// BENCH_RUNS runs (default 3).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { benchDatabase } from './lib/database.js';

const dir = path.resolve(process.argv[2] ?? '.');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

/** CPU time (ms) and resident memory (MB) of a process, from /proc. */
async function usage(pid: number): Promise<{ cpuMs: number; rssMb: number; peakMb: number }> {
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  // utime and stime are fields 14 and 15 of stat, in clock ticks of 10 ms.
  return {
    cpuMs: (Number(stat[11]) + Number(stat[12])) * 10,
    rssMb: kb('VmRSS') / 1024,
    peakMb: kb('VmHWM') / 1024,
  };
}

/** Starts the server with `command`, returns once /readyz answers, with the time that took. */
async function ready(
  command: 'node' | 'npm',
  env: Record<string, string>,
): Promise<{ server: ReturnType<typeof spawn>; readyMs: number }> {
  const started = performance.now();
  const [file, args] =
    command === 'node'
      ? [process.execPath, ['dist/main.js', 'serve']]
      : ['npm', ['start', '--silent']];
  // Its own process group: npm's child (the server) is stopped with it.
  const server = spawn(file, args, {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'ignore'],
    detached: true,
  });
  for (;;) {
    const answer = await fetch(`http://127.0.0.1:${env.PORT}/readyz`).catch(() => null);
    if (answer?.ok) return { server, readyMs: performance.now() - started };
    await sleep(20);
  }
}

async function stop(server: ReturnType<typeof spawn>): Promise<void> {
  const exited = new Promise((resolve) => server.on('exit', resolve));
  process.kill(-(server.pid as number), 'SIGTERM');
  await exited;
}

/** The ready time of `npm start` or of the built server, on a fresh database. */
async function readyOnly(command: 'node' | 'npm'): Promise<number> {
  const db = await benchDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-startup-'));
  const env = { DATABASE_URL: db.url, DATA_DIR: dataDir, HOST: '127.0.0.1' };
  try {
    const { server, readyMs } = await ready(command, { ...env, PORT: String(await freePort()) });
    await stop(server);
    return readyMs;
  } finally {
    await db.done();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function once(): Promise<{
  readyMs: number;
  settledMs: number;
  rssMb: number;
  peakMb: number;
}> {
  const db = await benchDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-startup-'));
  const env = { DATABASE_URL: db.url, DATA_DIR: dataDir, HOST: '127.0.0.1' };
  const started = performance.now();
  const { server, readyMs } = await ready('node', { ...env, PORT: String(await freePort()) });
  try {
    // Settled: under 30 ms of CPU in a 500 ms window, i.e. the background loads are done.
    let last = await usage(server.pid as number);
    for (;;) {
      await sleep(500);
      const now = await usage(server.pid as number);
      if (now.cpuMs - last.cpuMs < 30) {
        return { readyMs, settledMs: performance.now() - started - 500, ...now };
      }
      last = now;
    }
  } finally {
    await stop(server);
    await db.done();
    await rm(dataDir, { recursive: true, force: true });
  }
}

console.log(`start-up of ${dir}, ${RUNS} runs`);
console.log('| run | ready ms | settled ms | RSS MB settled | peak RSS MB |');
console.log('|---|---|---|---|---|');
for (let run = 1; run <= RUNS; run++) {
  const r = await once();
  console.log(
    `| ${run} | ${Math.round(r.readyMs)} | ${Math.round(r.settledMs)} | ${Math.round(r.rssMb)} | ${Math.round(r.peakMb)} |`,
  );
}

console.log(`\nnpm start on the unchanged checkout against node dist/main.js serve, alternating`);
console.log('| run | node dist/main.js serve: ready ms | npm start: ready ms |');
console.log('|---|---|---|');
for (let run = 1; run <= RUNS; run++) {
  const node = await readyOnly('node');
  const npm = await readyOnly('npm');
  console.log(`| ${run} | ${Math.round(node)} | ${Math.round(npm)} |`);
}
