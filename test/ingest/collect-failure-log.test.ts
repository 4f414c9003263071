import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKeys } from '../../src/auth/keys.js';
import { Tokens } from '../../src/auth/tokens.js';
import { createUser } from '../../src/auth/users.js';
import { loadConfig } from '../../src/config.js';
import { connect, type Db } from '../../src/db/connect.js';
import { client, createTestDatabase } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import {
  type Finished,
  finished,
  freePort,
  killStragglers,
  spawnFootfall,
  waitUntilReady,
} from '../helpers/process.js';

// A real server's own log: what an operator (and whoever reads their logs) gets to see.
const MARKER = `private-${randomBytes(6).toString('hex')}`;
const SITE = 'https://acme-site.example';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let dataDir: string;
let base: string;
let server: ReturnType<typeof spawnFootfall>;
let output: Promise<Finished>;
let script: string;

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-log-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    TOKEN_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'info',
  };
  server = spawnFootfall(['serve'], env);
  output = finished(server);
  await waitUntilReady(base, output);

  db = connect(database.url);
  const operator = await createUser(db.db, 'ops@example.com');
  const tokens = new Tokens(db.db, (await loadKeys(loadConfig(env))).tokenSigning);
  const { token } = await tokens.issue(operator.id, 'test', null);
  const answer = await client(base, token)('POST', '/v1/workspaces', { url: SITE });
  script = answer.body.data.tracking_script_id;
  // The database refuses this visitor's page: the failing row, with the page, is in its error.
  await db.pool.query(
    `ALTER TABLE events ADD CONSTRAINT refuse_marked CHECK (url NOT LIKE '%${MARKER}%')`,
  );
});
afterAll(async () => {
  server?.kill('SIGTERM');
  await output?.catch(() => undefined);
  killStragglers();
  await db?.close();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a collect request the database refuses', () => {
  it('answers 503 and logs one line, without the data', async () => {
    const refused = await collector(base)(
      visit(script, [pageview(`${SITE}/account/${MARKER}?email=someone@acme.example`, Date.now())]),
    );
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    // Another page still goes in.
    const stored = await collector(base)(visit(script, [pageview(`${SITE}/`, Date.now())]));
    expect(stored.status).toBe(202);

    server.kill('SIGTERM');
    const { stdout, stderr } = await output;
    expect(stdout + stderr).not.toContain(MARKER);
    expect(stdout + stderr).not.toContain('someone@acme.example');
    const errors = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.level >= 50);
    expect(errors).toHaveLength(1);
    const [logged] = errors;
    expect(logged.err).toMatchObject({ code: '23514', message: expect.any(String) });
    expect(Object.keys(logged.err).sort()).toEqual(
      expect.not.arrayContaining(['detail', 'where', 'hint', 'table', 'constraint']),
    );
  });
});
