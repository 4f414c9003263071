// The server half of the collector benchmark: the real app over a fresh database, plus a
// bare endpoint that answers 204 to the same requests, in the same process.
// BENCH_WORKERS=N (N > 0): this process is a collector (role `collector`) and starts N worker
// processes (bench/worker.ts, role `worker`) as its children, so that their CPU counts as
// this process tree's; without it, one process of role `all` does both.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app.js';
import { createUser } from '../src/auth/users.js';
import { loadConfig } from '../src/config.js';
import { connect } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { loadKeys } from '../src/http/keys.js';
import { Tokens } from '../src/http/tokens.js';
import { upsertIpRanges } from '../src/identify/ip-ranges.js';
import { checkFilters } from '../src/segments/filters.js';
import { saveSegment } from '../src/segments/store.js';
import { createWorkspace } from '../src/workspaces/store.js';

const databaseUrl = process.env.BENCH_DATABASE_URL as string;
const workers = Number(process.env.BENCH_WORKERS ?? 0);
const tokenSecret = randomBytes(32).toString('hex');
const config = loadConfig({
  ...process.env,
  DATABASE_URL: databaseUrl,
  ROLE: workers > 0 ? 'collector' : 'all',
  TOKEN_SECRET: tokenSecret,
  COLLECT_RATE_LIMIT_PER_IP: '100000000',
  COLLECT_RATE_LIMIT_PER_SCRIPT: '100000000',
});
const database = connect(databaseUrl, 20);
await migrate(database.db);
// Loopback visitors belong to one organisation, so the whole resolver path runs.
await upsertIpRanges(database.db, [{ network: '127.0.0.0/8', domain: 'acme.com', name: 'Acme' }]);
const operator = await createUser(database.db, 'bench@example.com');
const workspace = await createWorkspace(database.db, operator.id, {
  name: 'bench',
  url: 'https://www.acme-analytics.example', // the host the load's pages are on
  usageLimit: 10000,
});
// For the new-visitor load: every request names an organisation of its own, none refused.
const fresh = await createWorkspace(database.db, operator.id, {
  name: 'bench new visitors',
  url: 'https://www.acme-analytics.example',
  usageLimit: 10_000_000,
});
// BENCH_SEGMENTS=N: the workspace has N segments, so the writer queues organisations
// and the segment worker evaluates them while the load runs.
for (let i = 0; i < Number(process.env.BENCH_SEGMENTS ?? 0); i++) {
  const checked = checkFilters(
    {
      operator: 'AND',
      conditions: [
        { field: 'sessions', comparison: 'greater_than', value: i },
        { field: 'url', comparison: 'contains', value: '/pricing' },
        { field: 'last_seen', comparison: 'less_than_x_units_ago', value: 7, unit: 'days' },
      ],
    },
    [],
  );
  if ('errors' in checked) throw new Error(JSON.stringify(checked.errors));
  await saveSegment(database.db, workspace.id, { name: `segment ${i}`, filters: checked.filters });
}
const keys = await loadKeys(config);
const app = await buildApp({
  config,
  db: database.db,
  keys,
  tokens: new Tokens(database.db, keys.tokenSigning),
});
// BENCH_WORKER_NODE_ARGS: flags for the workers' Node (say, --cpu-prof).
const workerFlags = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
async function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...workerFlags, '--import', 'tsx', 'bench/worker.ts'], {
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, TOKEN_SECRET: tokenSecret },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  // Ready once it prints its line.
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`a bench worker exited (${code})`)));
  });
  child.stdout?.resume();
  return child;
}
const stopWorker = (child: ChildProcess) =>
  new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
let children: ChildProcess[] = [];
// The bench may hold the workers while it measures the acknowledgement alone (as with
// collectors and workers on machines of their own), then let them drain the inbox.
await app.register(async (scope) => {
  scope.post('/bench/workers/stop', async () => {
    await Promise.all(children.map(stopWorker));
    children = [];
    return { workers: 0 };
  });
  scope.post('/bench/workers/start', async () => {
    children = [...children, ...(await Promise.all(Array.from({ length: workers }, startWorker)))];
    return { workers: children.length };
  });
});
await app.register(async (scope) => {
  scope.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  scope.post('/bench/bare', { logLevel: 'warn' }, async (_request, reply) =>
    reply.status(204).send(),
  );
});
await app.listen({ port: 0, host: '127.0.0.1' });
children = await Promise.all(Array.from({ length: workers }, startWorker));
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(
  `${JSON.stringify({
    url: `http://127.0.0.1:${port}`,
    script: workspace.tracking_script_id,
    workspace: workspace.id,
    freshScript: fresh.tracking_script_id,
    freshWorkspace: fresh.id,
  })}\n`,
);
process.on('SIGTERM', async () => {
  await Promise.all(children.map(stopWorker));
  await app.close();
  await database.close();
  process.exit(0);
});
