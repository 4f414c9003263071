import { readFile, writeFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';

// The dashboard's API types are generated from the server's own /openapi.json, so the two
// cannot drift: this test fails when a route or schema changes and the types were not
// regenerated. `UPDATE_API_TYPES=1 npx vitest run test/web/api-types.test.ts` rewrites them.
const TYPES = new URL('../../web/src/api/schema.d.ts', import.meta.url);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('the dashboard API types', () => {
  it('are generated from the current /openapi.json', async () => {
    const { body } = await client(t.url)('GET', '/openapi.json');
    const generated = `// Generated from /openapi.json by test/web/api-types.test.ts; do not edit.\n${astToString(
      await openapiTS(body as Parameters<typeof openapiTS>[0]),
    )}`;
    if (process.env.UPDATE_API_TYPES) await writeFile(TYPES, generated);
    const committed = await readFile(TYPES, 'utf8').catch(() => '');
    expect(committed, 'run UPDATE_API_TYPES=1 npx vitest run test/web/api-types.test.ts').toBe(
      generated,
    );
  });
});
