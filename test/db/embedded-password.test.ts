import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';

let dataDir: string | undefined;
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Seen {
  file: string;
  mode: number;
  dirMode: number;
}

/** Every `pg-password-*` file under `dirs` (two levels deep), with its and its folder's mode. */
async function passwordFiles(dirs: string[]): Promise<Seen[]> {
  const seen: Seen[] = [];
  const look = async (dir: string, depth: number) => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isFile() && entry.name.startsWith('pg-password-')) {
        const [file, folder] = await Promise.all([stat(full), stat(dir)]).catch(() => []);
        if (file && folder)
          seen.push({ file: full, mode: file.mode & 0o777, dirMode: folder.mode & 0o777 });
      } else if (entry.isDirectory() && depth > 0 && entry.name !== 'postgres') {
        await look(full, depth - 1);
      }
    }
  };
  for (const dir of dirs) await look(dir, 1);
  return seen;
}

describe('creating the embedded cluster', () => {
  it('keeps the password file initdb reads where no other user can read it', async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-initdb-'));
    const shared = os.tmpdir();
    const seen: Seen[] = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        seen.push(...(await passwordFiles([shared, dataDir as string])));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const database = await startEmbeddedPostgres({ dataDir, role: 'server', log: () => {} });
    watching = false;
    await watch;
    await database.stop();

    expect(seen.length).toBeGreaterThan(0); // initdb's file was there to be seen
    for (const { file, mode, dirMode } of seen) {
      expect(path.dirname(file)).not.toBe(shared);
      expect(dirMode & 0o077).toBe(0); // its folder: owner only
      if (os.userInfo().uid !== 0) expect(mode).toBe(0o600);
    }
    // Nothing of it is left behind.
    expect(await passwordFiles([shared, dataDir])).toEqual([]);
    expect((await stat(path.join(dataDir, 'postgres.password'))).mode & 0o777).toBe(0o600);
  });
});
