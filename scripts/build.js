#!/usr/bin/env node
// Builds the server (tsc → dist/) and the dashboard (Vite → dist/web/), and records a
// fingerprint of everything the build reads. With --if-stale (what `npm start` runs) it
// builds only when that fingerprint changed: a restart on an unchanged checkout serves at
// once instead of spending a minute compiling the same code again. With --check it builds
// nothing and says by its exit code whether dist/ is current (the tests' processes run it
// when it is).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'dist', '.build-fingerprint');
// What the build reads: the sources of both builds, their configurations and the exact
// dependency versions.
const inputs = ['src', 'web', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

/** Every file at or under `entry`, as paths relative to the checkout, sorted. */
function files(entry) {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((item) => item.isFile())
    .map((item) => path.relative(root, path.join(item.parentPath, item.name)))
    .sort();
}

/** A hash of the names and contents of every input (contents, not times: a fresh clone or
 * a `git checkout` sets new times on unchanged files). */
function fingerprint() {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap(files)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const current = fingerprint();
const fresh = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === current;
// --check only answers: exit 0 when dist/ is the build of the checkout as it is, 1 when not.
if (process.argv.includes('--check')) process.exit(fresh ? 0 : 1);
if (process.argv.includes('--if-stale') && fresh) process.exit(0);

const run = (command, args) =>
  execFileSync(path.join(root, 'node_modules', '.bin', command), args, {
    cwd: root,
    stdio: 'inherit',
    // Vite builds React's production bundle only when NODE_ENV says so (or is unset).
    env: { ...process.env, NODE_ENV: 'production' },
  });

process.stderr.write('footfall: building the server and the dashboard (once per change)\n');
// A build that fails half-way must not leave the stamp of the previous one behind.
rmSync(stamp, { force: true });
run('tsc', ['-p', 'tsconfig.build.json']);
run('vite', ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn']);
writeFileSync(stamp, `${current}\n`);
