import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The environment of a child Footfall: ours, less the database choice, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  return { ...inherited, LOG_LEVEL: 'warn', ONLINE_LOOKUPS: 'off', ...env };
}

const started = new Set<ChildProcess>();

let built: boolean | undefined;
/**
 * How to run the CLI: the build in dist/, as `npm start` runs it, when it is the build of
 * the checkout as it is (`scripts/build.js --check`; CI builds before testing), else the
 * sources through tsx, which costs each start about a second more of CPU.
 */
export function footfallCommand(args: string[]): string[] {
  if (built === undefined) {
    const check = spawnSync(process.execPath, ['scripts/build.js', '--check'], { cwd: ROOT });
    built = check.status === 0;
  }
  return built ? ['dist/main.js', ...args] : ['--import', 'tsx', 'src/main.ts', ...args];
}

/** Starts the real CLI (`footfall ...`). */
export function spawnFootfall(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, footfallCommand(args), {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  child.on('exit', () => started.delete(child));
  return child;
}

/** Kills what a failed test left running (call in afterAll). */
export function killStragglers(): void {
  for (const child of started) child.kill('SIGKILL');
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function finished(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Everything a child writes, stdout and stderr together (pino logs to one, notes to the other). */
export function outputOf(child: ChildProcess): () => string {
  let output = '';
  const keep = (chunk: Buffer | string) => {
    output += chunk;
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => output;
}

export function runFootfall(args: string[], env: Record<string, string>): Promise<Finished> {
  return finished(spawnFootfall(args, env));
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/**
 * Polls /readyz until the server answers 200; fails after `timeoutMs`, or at once with its
 * output when the server process ends first.
 */
export async function waitUntilReady(
  baseUrl: string,
  server?: Promise<Finished>,
  timeoutMs = 90_000,
): Promise<void> {
  let ended: Finished | undefined;
  void server?.then((result) => {
    ended = result;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (ended) {
      throw new Error(`the server exited (${ended.code}) before it was ready:\n${ended.stderr}`);
    }
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) return;
    } catch {}
    await sleep(200);
  }
  throw new Error(`${baseUrl} was not ready within ${timeoutMs} ms`);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
