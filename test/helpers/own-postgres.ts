import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './process.js';

const run = promisify(execFile);
// Debian's PostgreSQL server binaries.
const BIN = '/usr/lib/postgresql/15/bin';

export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  /** `pg_ctl restart -m fast`: what a failover looks like to the app. */
  restart(): Promise<void>;
  /** Stops the server at once and removes the cluster. */
  remove(): Promise<void>;
}

/**
 * A PostgreSQL cluster of the test's own, on a free port, for tests that restart it: the
 * machine's shared server is never restarted. As root, its programs run as `postgres`, in
 * a directory that user owns.
 */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-own-pg-'));
  const asRoot = process.getuid?.() === 0;
  const pgctl = async (program: string, args: string[]) => {
    const file = path.join(BIN, program);
    await (asRoot
      ? run('runuser', ['-u', 'postgres', '--', file, ...args], { cwd: dir })
      : run(file, args, { cwd: dir }));
  };
  if (asRoot) {
    const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout);
    await chown(dir, await id('-u'), await id('-g'));
  }
  const data = path.join(dir, 'data');
  const stop = () => pgctl('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  try {
    await pgctl('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
    ]);
    const port = await freePort();
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
    // With a log file: the server keeps pg_ctl's output open otherwise, and it never ends.
    const log = path.join(dir, 'log');
    await pgctl('pg_ctl', ['-D', data, '-o', options, '-l', log, '-w', 'start']);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      // pg_ctl restarts with the options of the last start.
      restart: () => pgctl('pg_ctl', ['-D', data, '-l', log, '-m', 'fast', '-w', 'restart']),
      async remove() {
        await stop().catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
