import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TrackerSettings } from './settings.js';

// The browser source, found from src/tracker/ and from dist/tracker/ alike.
const SOURCE = fileURLToPath(new URL('../../src/tracker/browser/tracker.ts', import.meta.url));

let bundled: Promise<string> | undefined;

/** The minified tracker, built once per process. */
export function trackerBundle(): Promise<string> {
  bundled ??= build({
    entryPoints: [SOURCE],
    bundle: true,
    minify: true,
    // Bare statements, as trackerScript wraps them in a function of their own; ES2020 keeps
    // `?.` and `??` as they are (every byte is served on every page).
    format: 'esm',
    target: 'es2020',
    write: false,
    legalComments: 'none',
  }).then((result) => (result.outputFiles[0]?.text ?? '').trim());
  return bundled;
}

/** The script for one workspace: its settings built in, and an ETag over the whole text. */
export async function trackerScript(settings: TrackerSettings) {
  const body = `!function(__FOOTFALL__){${await trackerBundle()}}(${JSON.stringify(settings)});`;
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag };
}
