import { execFile } from 'node:child_process';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
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
  /** `pg_ctl stop -m fast`, keeping the cluster. */
  stop(): Promise<void>;
  /** The server's log so far (every statement, with `log_statement=all` in `settings`). */
  log(): Promise<string>;
  /**
   * A streaming replica of this server (`pg_basebackup -R -X stream`) on a port of its own,
   * with the same settings; removed with it or by its own remove().
   */
  replica(): Promise<OwnPostgres>;
  /** Stops the server at once and removes the cluster. */
  remove(): Promise<void>;
}

/**
 * A PostgreSQL cluster of the test's own, on a free port, for tests that restart it: the
 * machine's shared server is never restarted. As root, its programs run as `postgres`, in
 * a directory that user owns.
 */
export async function startOwnPostgres(settings: string[] = []): Promise<OwnPostgres> {
  return startCluster(settings, null);
}

/** A new cluster: from initdb, or (`primaryPort`) a base backup of that server. */
async function startCluster(settings: string[], primaryPort: number | null): Promise<OwnPostgres> {
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
  const replicas: OwnPostgres[] = [];
  try {
    if (primaryPort === null) {
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
    } else {
      // initdb's pg_hba.conf lets loopback replication connections in (trust).
      await pgctl('pg_basebackup', [
        ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
        ...['-D', data, '-R', '-X', 'stream', '--no-sync'],
      ]);
    }
    const port = await freePort();
    const options = [
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
      ...settings.map((setting) => `-c ${setting}`),
    ].join(' ');
    // With a log file: the server keeps pg_ctl's output open otherwise, and it never ends.
    const log = path.join(dir, 'log');
    await pgctl('pg_ctl', ['-D', data, '-o', options, '-l', log, '-w', 'start']);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      // pg_ctl restarts with the options of the last start.
      restart: () => pgctl('pg_ctl', ['-D', data, '-l', log, '-m', 'fast', '-w', 'restart']),
      stop: () => pgctl('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
      log: () => readFile(log, 'utf8'),
      async replica() {
        const replica = await startCluster(settings, port);
        replicas.push(replica);
        return replica;
      },
      async remove() {
        for (const replica of replicas) await replica.remove();
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
