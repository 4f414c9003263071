// A worker process of the collector benchmark (bench/server.ts starts it with BENCH_WORKERS):
// the real app of role `worker` over the benchmark's database, which it processes.
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { connect } from '../src/db/connect.js';
import { loadKeys } from '../src/http/keys.js';
import { Tokens } from '../src/http/tokens.js';

const databaseUrl = process.env.BENCH_DATABASE_URL as string;
const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl, ROLE: 'worker' });
const database = connect(databaseUrl, 10);
const keys = await loadKeys(config);
const app = await buildApp({
  config,
  db: database.db,
  keys,
  tokens: new Tokens(database.db, keys.tokenSigning),
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write('ready\n');
const stop = async () => {
  await app.close();
  await database.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
// The bench server may die without a word (SIGKILL): its IPC channel closing says so.
process.on('disconnect', stop);
