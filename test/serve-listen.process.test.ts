import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './helpers/app.js';
import {
  finished,
  footfallCommand,
  freePort,
  killStragglers,
  runFootfall,
} from './helpers/process.js';

// `footfall serve` when it cannot have its port: what the operator reads, and what is left.
let dataDir: string;
let taken: net.Server;
let port: number;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-listen-'));
  port = await freePort();
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
});
afterAll(async () => {
  killStragglers();
  taken?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The lines an operator sees on the terminal, and any error the JSON log recorded. */
function read(result: { stdout: string; stderr: string }) {
  const errors = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.level >= 50);
  return { lines: result.stderr.trim().split('\n'), errors };
}

describe('footfall serve on a port it cannot have', () => {
  it('says in one line which address is taken and how to choose another, exits non-zero, and stops the embedded database', async () => {
    const result = await runFootfall(['serve'], {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    expect(result.code).toBe(1);
    const { lines, errors } = read(result);
    expect(lines.at(-1)).toBe(
      `footfall: error: 127.0.0.1:${port} is already in use (another Footfall, or another server?): stop it, or choose another port, e.g. PORT=${port + 1} npm start`,
    );
    expect(lines.filter((line) => /^\s+at /.test(line))).toEqual([]); // no stack
    // The jobs that started with the app were stopped before the database went.
    expect(errors).toEqual([]);
    // PostgreSQL removes its pid file when it shuts down cleanly.
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(result.stdout).not.toMatch(/listening/i);
  }, 120_000);

  it.skipIf(process.getuid?.() !== 0)(
    'says that a port below 1024 needs privileges, for a user without them',
    async () => {
      const database = await createTestDatabase();
      const home = await mkdtemp(path.join(os.tmpdir(), 'footfall-listen-nobody-'));
      await chmod(home, 0o777);
      try {
        // An ordinary user's account (nobody), as a non-root operator runs Footfall.
        const child = spawn(process.execPath, footfallCommand(['serve']), {
          cwd: path.resolve(import.meta.dirname, '..'),
          uid: 65534,
          gid: 65534,
          env: {
            PATH: process.env.PATH,
            HOME: home,
            DATABASE_URL: database.url,
            DATA_DIR: home,
            PORT: '80',
            HOST: '127.0.0.1',
            TOKEN_SECRET: 'x'.repeat(40),
            LOG_LEVEL: 'warn',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const result = await finished(child);
        expect(result.code).toBe(1);
        expect(read(result).lines.at(-1)).toBe(
          'footfall: error: no permission to listen on 127.0.0.1:80 (ports below 1024 need privileges): choose another port, e.g. PORT=3000 npm start, with a proxy in front if it must be 80',
        );
        expect(read(result).errors).toEqual([]);
      } finally {
        await database.drop();
        await rm(home, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
