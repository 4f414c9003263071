import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `npm start` runs `scripts/build.js --if-stale`: it builds on the first start and after the
// sources change, and otherwise starts at once. Here in a copy of the layout whose compilers
// (node_modules/.bin/tsc and vite) only write down that they ran, and can be made to fail.
const run = promisify(execFile);
const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/build.js');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-build-'));
  await mkdir(path.join(dir, 'scripts'));
  await copyFile(SCRIPT, path.join(dir, 'scripts/build.js'));
  for (const folder of ['src', 'web/src', 'node_modules/.bin', 'dist']) {
    await mkdir(path.join(dir, folder), { recursive: true });
  }
  await writeFile(path.join(dir, 'src/main.ts'), 'export const a = 1;\n');
  await writeFile(path.join(dir, 'web/src/main.tsx'), 'export const b = 2;\n');
  await writeFile(path.join(dir, 'package-lock.json'), '{}\n');
  await writeFile(path.join(dir, 'tsconfig.json'), '{}\n');
  for (const tool of ['tsc', 'vite']) {
    const file = path.join(dir, 'node_modules/.bin', tool);
    await writeFile(
      file,
      `#!/bin/sh\necho ${tool} >> "${dir}/ran"\n[ -f "${dir}/fail" ] && exit 1\nexit 0\n`,
    );
    await chmod(file, 0o755);
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs the build as `npm start` does; which compilers ran. */
async function start(): Promise<string[]> {
  await rm(path.join(dir, 'ran'), { force: true });
  await run(process.execPath, [path.join(dir, 'scripts/build.js'), '--if-stale']).catch(() => {});
  return (await readFile(path.join(dir, 'ran'), 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean);
}

describe('the build before npm start', () => {
  it('builds the first time, then not again until a source changes', async () => {
    expect(await start()).toEqual(['tsc', 'vite']);
    expect(await start()).toEqual([]);
    expect(await start()).toEqual([]);
    await writeFile(path.join(dir, 'web/src/main.tsx'), 'export const b = 3;\n');
    expect(await start()).toEqual(['tsc', 'vite']);
    expect(await start()).toEqual([]);
    // A new file counts, and so does a dependency change in the lockfile.
    await writeFile(path.join(dir, 'src/extra.ts'), 'export {};\n');
    expect(await start()).toEqual(['tsc', 'vite']);
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion": 3}\n');
    expect(await start()).toEqual(['tsc', 'vite']);
    expect(await start()).toEqual([]);
  });

  it('--check says whether the build is current, and builds nothing', async () => {
    const check = () =>
      run(process.execPath, [path.join(dir, 'scripts/build.js'), '--check']).then(
        () => 'current',
        () => 'stale',
      );
    expect(await start()).toEqual([]);
    expect(await check()).toBe('current');
    await writeFile(path.join(dir, 'src/checked.ts'), 'export {};\n');
    expect(await check()).toBe('stale');
    expect(await readFile(path.join(dir, 'ran'), 'utf8').catch(() => '')).toBe('');
    expect(await start()).toEqual(['tsc', 'vite']);
    expect(await check()).toBe('current');
  });

  it('builds again after a build that failed half-way', async () => {
    await writeFile(path.join(dir, 'src/main.ts'), 'export const a = 2;\n');
    await writeFile(path.join(dir, 'fail'), '');
    expect(await start()).toEqual(['tsc']);
    await rm(path.join(dir, 'fail'));
    expect(await start()).toEqual(['tsc', 'vite']);
    expect(await start()).toEqual([]);
  });
});
