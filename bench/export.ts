// npm run bench (part): GET .../sessions.csv over the benches' large workspace (1,000,000
// sessions, ≈3 page views each), from a server in its own process so that its memory is what
// is measured: rows per second, and the server's resident memory before and at its peak
// while exporting about 100,000 sessions (3 days) and all 1,000,000. Run twice: as Node runs
// by default (V8 lets its heap grow lazily while garbage is cheap to keep), and with the old
// generation capped at 160 MB, where the same export must finish at the same speed with a
// flat peak: what the export keeps alive does not grow with the rows.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { benchApi } from './lib/api.js';
import { seedLargeWorkspace } from './lib/dataset.js';

const ORGANISATIONS = Number(process.env.BENCH_ORGANISATIONS ?? 10_000);
// Every tenth session of the data set is unattributed (lists and exports leave those out):
// 1,111,111 sessions hold exactly 1,000,000 attributed ones.
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1_111_111);

const { db, token, settings, call, done } = await benchApi();
const ws = await seedLargeWorkspace(db, call, { organisations: ORGANISATIONS, sessions: SESSIONS });

async function startServer(heapMb?: number) {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
  const flags = heapMb ? [`--max-old-space-size=${heapMb}`] : [];
  const server = spawn(process.execPath, [...flags, '--import', 'tsx', 'src/main.ts', 'serve'], {
    env: { ...process.env, ...settings, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (i > 300) throw new Error('the export server did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const rssMb = () => {
    const line = readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return Number(line?.[1] ?? 0) / 1024;
  };
  const stop = async () => {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  };
  return { base, rssMb, stop };
}

type Server = Awaited<ReturnType<typeof startServer>>;

async function exportCsv({ base, rssMb }: Server, label: string, query: string) {
  const before = rssMb();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb());
  }, 100);
  const started = performance.now();
  const response = await fetch(`${base}/v1/workspaces/${ws}/sessions.csv?${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok || !response.body) throw new Error(`${label}: ${response.status}`);
  let bytes = 0;
  let lines = 0;
  // Rows end in CRLF (a line break inside a cell is a bare LF); a CRLF may straddle chunks.
  let previous = 0;
  for await (const chunk of response.body) {
    bytes += chunk.length;
    for (const byte of chunk) {
      if (byte === 10 && previous === 13) lines++;
      previous = byte;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb());
  const rows = lines - 1;
  console.log(
    `${label}: ${rows.toLocaleString('en')} rows, ${(bytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(1)} s = ${Math.round(rows / seconds).toLocaleString('en')} rows/s; server RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB (+${(peak - before).toFixed(0)} MB)`,
  );
  return { rows, peak, before, rate: Math.round(rows / seconds) };
}

const day = (offset: number) =>
  new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
const results: string[] = [];
for (const heap of [undefined, 160]) {
  const server = await startServer(heap);
  const how = heap ? `old generation capped at ${heap} MB` : 'Node defaults';
  console.log(`-- server with ${how}`);
  await exportCsv(server, 'warm-up, 1 day', `date=${day(0)}`);
  const small = await exportCsv(
    server,
    'sessions.csv, 3 days',
    `date_from=${day(2)}&date_to=${day(0)}`,
  );
  const all = await exportCsv(server, 'sessions.csv, all', '');
  results.push(
    `${how}: ${all.rows.toLocaleString('en')} sessions at ${all.rate.toLocaleString('en')} rows/s, peak RSS ${all.peak.toFixed(0)} MB (vs ${small.peak.toFixed(0)} MB for ${small.rows.toLocaleString('en')} rows, ${all.before.toFixed(0)} MB idle)`,
  );
  await server.stop();
}
console.log('');
for (const line of results) console.log(`export, ${line}`);
await done();
