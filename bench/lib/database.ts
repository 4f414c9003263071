import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';

/**
 * A fresh database for a benchmark: on DATABASE_URL's server, or an embedded one, whose
 * server process id (`pid`) lets a benchmark count the database's CPU time.
 */
export async function benchDatabase(): Promise<{
  url: string;
  pid: number | null;
  done: () => Promise<void>;
}> {
  let adminUrl = process.env.DATABASE_URL;
  let pid: number | null = null;
  let stopEmbedded = async () => {};
  if (!adminUrl) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-bench-'));
    const server = await startEmbeddedPostgres({ dataDir: dir, role: 'server', log: () => {} });
    adminUrl = server.url;
    const pidFile = await readFile(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8');
    pid = Number.parseInt(pidFile.split('\n')[0] ?? '', 10) || null;
    stopEmbedded = async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const admin = adminUrl;
  const name = `footfall_bench_${randomBytes(4).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    pid,
    done: async () => {
      await run(`DROP DATABASE ${name} WITH (FORCE)`);
      await stopEmbedded();
    },
  };
}
