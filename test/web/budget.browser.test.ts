import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, startDashboard } from './harness.js';

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
});
afterAll(() => d.close());

const BUDGET = 200 * 1024;

describe('the dashboard’s first load', () => {
  it('needs at most 200 KB of gzipped JavaScript for any main page', {
    timeout: 90_000,
  }, async () => {
    const { who, context } = await d.signedIn('budget@example.com');
    const created = await who.api('POST', '/v1/workspaces', { url: 'https://budget.example' });
    const uuid = (created.body as { data: { uuid: string } }).data.uuid;
    const sizes: Record<string, number> = {};
    for (const path of ['', '/organisations', '/sessions', '/segments', '/contacts', '/settings']) {
      // A fresh page with an empty cache: everything it runs is fetched and counted.
      const page = await context.newPage();
      const scripts: Promise<Buffer>[] = [];
      page.on('response', (response) => {
        if (response.request().resourceType() === 'script') scripts.push(response.body());
      });
      await page.goto(`/w/${uuid}${path}`, { waitUntil: 'networkidle' });
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      const bodies = await Promise.all(scripts);
      sizes[path || '/'] = bodies.reduce(
        (sum, body) => sum + gzipSync(body, { level: 9 }).length,
        0,
      );
      expect(bodies.length).toBeGreaterThan(0);
      await page.close();
    }
    console.log('first-load JS, gzipped bytes per page:', sizes);
    for (const [path, size] of Object.entries(sizes)) {
      expect(size, `${path} loads ${size} gzipped bytes of JS`).toBeLessThanOrEqual(BUDGET);
    }
  });
});
