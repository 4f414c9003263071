import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { minify } from 'uglify-js';
import type { TrackerSettings } from './settings.js';

// The browser source, found from src/tracker/ and from dist/tracker/ alike.
const SOURCE = fileURLToPath(new URL('../../src/tracker/browser/tracker.ts', import.meta.url));
// Where the workspace's settings go: the one free name in the bundle.
const SETTINGS = '__FOOTFALL__';

let bundled: Promise<string> | undefined;

/**
 * The minified tracker, built once per process. esbuild bundles it (with the rules shared with
 * the collector); uglify-js then minifies it again, some 80 bytes smaller gzipped than
 * esbuild's own output (docs/performance.md): every byte is served on every page.
 */
export function trackerBundle(): Promise<string> {
  bundled ??= build({
    entryPoints: [SOURCE],
    bundle: true,
    minify: true,
    // Bare statements, wrapped in a function of their own below; ES2020 keeps `?.` and `??`
    // as they are.
    format: 'esm',
    target: 'es2020',
    write: false,
    legalComments: 'none',
  }).then((result) => {
    const squeezed = minify(`!function(){${result.outputFiles[0]?.text ?? ''}}()`, {
      compress: { passes: 3, varify: false },
      mangle: { reserved: [SETTINGS] },
      // Read as strict code (uglify-js's default), which the ESM source is; the wrapper keeps
      // every name inside it, off the page's global scope.
      toplevel: false,
    });
    if (squeezed.error) throw squeezed.error;
    return squeezed.code;
  });
  return bundled;
}

/** The script for one workspace: its settings built in, and an ETag over the whole text. */
export async function trackerScript(settings: TrackerSettings) {
  // A function replacement: `$` in a URL is not a replacement pattern.
  const body = (await trackerBundle()).replace(SETTINGS, () => JSON.stringify(settings));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag };
}
