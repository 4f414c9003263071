import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { loadKeys } from '../../src/http/keys.js';
import { createTestDatabase } from '../helpers/app.js';
import { freePort, killStragglers, runFootfall } from '../helpers/process.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-keys-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));
afterAll(() => killStragglers());

const keysOf = () => loadKeys(loadConfig({ DATA_DIR: dataDir }));

describe('the master secret in DATA_DIR/secret.key', () => {
  it('is generated once, private, and the same on the next start', async () => {
    const first = await keysOf();
    const file = await stat(path.join(dataDir, 'secret.key'));
    expect(file.mode & 0o777).toBe(0o600);
    expect(file.size).toBeGreaterThanOrEqual(33);
    const again = await keysOf();
    expect(again.encryption.equals(first.encryption)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['blank', ' \n'],
    ['short', 'abc123\n'],
  ])('is refused when %s, with a message that names the file', async (_kind, text) => {
    await writeFile(path.join(dataDir, 'secret.key'), text, { mode: 0o600 });
    await expect(keysOf()).rejects.toThrow(/secret\.key holds \d+ characters/);
  });

  it('stops `footfall serve` before it listens', async () => {
    await writeFile(path.join(dataDir, 'secret.key'), '', { mode: 0o600 });
    const database = await createTestDatabase();
    try {
      const port = await freePort();
      const served = await runFootfall(['serve'], {
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        PORT: String(port),
        HOST: '127.0.0.1',
      });
      expect(served.code).not.toBe(0);
      expect(served.stderr).toContain('secret.key holds 0 characters');
      expect(served.stderr).toContain('TOKEN_SECRET');
    } finally {
      await database.drop();
    }
  });
});
