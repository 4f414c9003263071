import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { killStragglers } from '../helpers/process.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

// A real server's own log: what an operator (and whoever reads their logs) gets to see.
const MARKER = `private-${randomBytes(6).toString('hex')}`;
const SITE = 'https://acme-site.example';

let server: ServerProcess;
let base: string;
let script: string;

beforeAll(async () => {
  server = await startServerProcess();
  base = server.base;
  const token = await server.token('ops@example.com');
  const answer = await client(base, token)('POST', '/v1/workspaces', { url: SITE });
  script = answer.body.data.tracking_script_id;
  // The database refuses this visitor's page: the failing row, with the page, is in its error.
  await server.db.pool.query(
    `ALTER TABLE events ADD CONSTRAINT refuse_marked CHECK (url NOT LIKE '%${MARKER}%')`,
  );
});
afterAll(async () => {
  await server?.close();
  killStragglers();
});

describe('a collect request the database refuses', () => {
  it('is acknowledged, kept aside in the quarantine, and logged in one line without the data', async () => {
    // Stored raw first (contract §19); processing meets the refusal.
    const refused = await collector(base, { wait: false })(
      visit(script, [pageview(`${SITE}/account/${MARKER}?email=someone@acme.example`, Date.now())]),
    );
    expect(refused.status).toBe(202);
    // Another page still goes in.
    const stored = await collector(base)(visit(script, [pageview(`${SITE}/`, Date.now())]));
    expect(stored.status).toBe(202);
    const kept = await server.db.pool.query('SELECT reason, detail FROM ingest_quarantine');
    expect(kept.rows).toEqual([{ reason: 'constraint', detail: 'SQLSTATE 23514' }]);

    server.child.kill('SIGTERM');
    const { stdout, stderr } = await server.exit;
    expect(stdout + stderr).not.toContain(MARKER);
    expect(stdout + stderr).not.toContain('someone@acme.example');
    const warnings = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.level >= 40);
    expect(warnings.map((entry) => entry.msg)).toEqual([
      expect.stringMatching(
        /^ingest: request \d+ of workspace [0-9a-f-]{36} quarantined \(constraint, SQLSTATE 23514\); footfall ingest replay sends it again$/,
      ),
    ]);
  });
});
