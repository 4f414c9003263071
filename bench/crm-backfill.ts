// npm run bench (part): a CRM backfill (contract §18, "Sync now") of 10,000 qualifying
// organisations against the tests' HubSpot stand-in, which enforces HubSpot's documented
// limits (100 calls per 10 s, search 4 per second; 50 ms per answer) in a process of its
// own. The sync runs here as a server runs it: the CRM worker on the shared delivery loop,
// its token bucket in the database. Reports organisations per second, the calls made and
// refused, and this process's peak RSS at each fifth of the way, which stays flat: the
// worker holds one batch (100 rows) at a time, whatever the backfill's size.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createUser } from '../src/auth/users.js';
import { loadConfig } from '../src/config.js';
import { connect } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { encrypt } from '../src/http/keys.js';
import { startBackfill } from '../src/integrations/crm/store.js';
import { startCrmWorker } from '../src/integrations/crm/worker.js';
import { createWorkspace } from '../src/workspaces/store.js';
import { benchDatabase } from './lib/database.js';
import { seedWorkspace } from './lib/dataset.js';

const ORGANISATIONS = Number(process.env.BENCH_ORGANISATIONS ?? 10_000);

interface Stats {
  calls: number;
  refused: number;
  overLimit: number;
  companies: number;
  domains: number;
  duplicated: number;
}

const child = fork(path.join(import.meta.dirname, 'lib/hubspot-process.ts'), {
  execArgv: ['--import', 'tsx'],
});
const standIn = await new Promise<{ url: string; token: string }>((resolve) =>
  child.once('message', (message) => resolve(message as { url: string; token: string })),
);
const stats = () =>
  new Promise<Stats>((resolve) => {
    child.once('message', (message) => resolve(message as Stats));
    child.send('stats');
  });

const database = await benchDatabase();
const { db, close } = connect(database.url);
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-bench-crm-'));
try {
  await migrate(db);
  const version = await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(
    db,
  );
  console.log(`PostgreSQL ${version.rows[0]?.v}`);
  const admin = await createUser(db, 'bench@example.com', 'Bench');
  const ws = (
    await createWorkspace(db, admin.id, {
      name: 'Bench',
      url: 'https://bench.example',
      usageLimit: 10_000_000,
    })
  ).id;
  await seedWorkspace(db, ws, { organisations: ORGANISATIONS, sessions: ORGANISATIONS * 3 });
  const key = randomBytes(32);
  await db
    .insertInto('crm_connections')
    .values({ workspace_id: ws, name: 'hubspot', token_encrypted: encrypt(key, standIn.token) })
    .execute();
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    HUBSPOT_API_URL: standIn.url,
    ALLOW_PRIVATE_WEBHOOKS: 'true',
  });
  const errors: string[] = [];
  const worker = startCrmWorker(
    {
      db,
      config,
      encryptionKey: key,
      mailer: null,
      log: (message) => errors.push(message),
    },
    200,
  );

  const started = performance.now();
  const total = await startBackfill(db, ws, 'hubspot');
  console.log(`backfill of ${total} organisations (HubSpot stand-in, documented limits)`);
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
  let fifth = 1;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { rows } = await sql<{ left: number }>`
      SELECT count(*)::int AS left FROM crm_deliveries WHERE status = 'pending'`.execute(db);
    const done = total - (rows[0]?.left ?? 0);
    while (fifth <= 5 && done >= (total * fifth) / 5) {
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `  ${String(done).padStart(6)} done after ${seconds.toFixed(1)} s, peak RSS so far ${mb(peak)}`,
      );
      fifth++;
    }
    if (done >= total) break;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await worker.stop();
  const figures = await stats();
  const failed = await db
    .selectFrom('crm_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('status', '=', 'failed')
    .executeTakeFirstOrThrow();
  console.log(
    `${ORGANISATIONS} organisations in ${seconds.toFixed(1)} s: ${(ORGANISATIONS / seconds).toFixed(0)} organisations/s; peak RSS ${mb(peak)}`,
  );
  console.log(
    `calls ${figures.calls} (${(figures.calls / seconds).toFixed(1)}/s), 429 ${figures.refused}, over the documented limit ${figures.overLimit}; companies ${figures.companies} for ${figures.domains} domains, ${figures.duplicated} domains with more than one; failed ${failed.n}`,
  );
  if (errors.length > 0) console.log(`worker errors: ${errors.slice(0, 3).join(' | ')}`);
} finally {
  child.disconnect();
  await close();
  await database.done();
  await rm(dataDir, { recursive: true, force: true });
}
