import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/auth/users.js';
import { loadConfig } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import { loadKeys } from '../../src/http/keys.js';
import { Tokens } from '../../src/http/tokens.js';
import { client } from '../helpers/app.js';
import { collector, pageview, processed, visit } from '../helpers/collect.js';
import { type OwnPostgres, startOwnPostgres } from '../helpers/own-postgres.js';
import {
  type Finished,
  finished,
  freePort,
  killStragglers,
  spawnFootfall,
  waitUntilReady,
} from '../helpers/process.js';

// A real server process on a PostgreSQL of the test's own, restarted twice under collect
// load and API reads, as a failover looks to the app.
const SITE = 'https://site.example';
const unlimited = '100000000';

let postgres: OwnPostgres | undefined;
let dataDir: string;
let base: string;
let server: ReturnType<typeof spawnFootfall>;
let output: Promise<Finished>;
let token: string;
let workspaceId: string;
let script: string;

beforeAll(async () => {
  postgres = await startOwnPostgres();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-restart-db-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: postgres.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    TOKEN_SECRET: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '1000000',
    COLLECT_RATE_LIMIT_PER_IP: unlimited,
    COLLECT_RATE_LIMIT_PER_SCRIPT: unlimited,
  };
  server = spawnFootfall(['serve'], env);
  output = finished(server);
  await waitUntilReady(base, output);

  const db = connect(postgres.url);
  const operator = await createUser(db.db, 'ops@example.com');
  const tokens = new Tokens(db.db, (await loadKeys(loadConfig(env))).tokenSigning);
  token = (await tokens.issue(operator.id, 'test', null)).token;
  await db.close();
  const workspace = (await client(base, token)('POST', '/v1/workspaces', { url: SITE })).body.data;
  workspaceId = workspace.uuid;
  script = workspace.tracking_script_id;
});
afterAll(async () => {
  server?.kill('SIGKILL');
  killStragglers();
  await postgres?.remove();
  await rm(dataDir, { recursive: true, force: true });
});

interface Answered {
  /** When the request was sent (performance.now()). */
  at: number;
  status: number | 'dropped';
  retryAfter?: string | null;
  body?: unknown;
}

describe('a PostgreSQL restart under load', () => {
  it('leaves the server up, answering 503 meanwhile, ready again by itself, nothing acknowledged lost', async () => {
    let stop = false;
    const acknowledged: string[] = [];
    const collects: Answered[] = [];
    const reads: Answered[] = [];
    const collectLoop = async (loop: number) => {
      for (let i = 0; !stop; i++) {
        const pages = [`${SITE}/l${loop}/${i}/a`, `${SITE}/l${loop}/${i}/b`];
        const body = visit(script, [
          pageview(pages[0] as string, Date.now()),
          pageview(pages[1] as string, Date.now()),
        ]);
        const at = performance.now();
        try {
          // Answered at the acknowledgement: what is acknowledged is checked at the end.
          const answer = await collector(base, { wait: false })(body);
          collects.push({ at, status: answer.status });
          if (answer.status === 202) acknowledged.push(...pages);
        } catch {
          // A reset connection acknowledges nothing: the tracker sends the events again.
          collects.push({ at, status: 'dropped' });
        }
      }
    };
    const api = client(base, token);
    const day = new Date().toISOString().slice(0, 10);
    const readLoop = async () => {
      for (let i = 0; !stop; i++) {
        const path =
          i % 2 === 0
            ? `/v1/workspaces/${workspaceId}/sessions?date=${day}`
            : `/v1/workspaces/${workspaceId}`;
        const at = performance.now();
        try {
          const answer = await api('GET', path);
          reads.push({
            at,
            status: answer.status,
            retryAfter: answer.headers.get('retry-after'),
            body: answer.body,
          });
        } catch {
          reads.push({ at, status: 'dropped' });
        }
      }
    };
    const loops = [
      collectLoop(1),
      collectLoop(2),
      collectLoop(3),
      collectLoop(4),
      readLoop(),
      readLoop(),
    ];

    const readyAgainMs: number[] = [];
    let ready = 0;
    for (let restart = 0; restart < 2; restart++) {
      await sleep(1500);
      const started = performance.now();
      await postgres?.restart();
      await waitUntilReady(base, output, 30_000);
      ready = performance.now();
      readyAgainMs.push(ready - started);
    }
    await sleep(1500);
    stop = true;
    await Promise.all(loops);

    // Up all along, ready again within 30 s of each restart.
    expect(server.exitCode).toBeNull();
    expect(server.signalCode).toBeNull();
    for (const ms of readyAgainMs) expect(ms).toBeLessThan(30_000);
    // Meanwhile: 503 with Retry-After and the contract's body, never a 500 or a cut connection.
    const statuses = (answers: Answered[]) => new Set(answers.map((answer) => answer.status));
    expect([...statuses(reads)].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect([...statuses(collects)].filter((status) => status !== 202 && status !== 503)).toEqual(
      [],
    );
    const unavailable = reads.filter((answer) => answer.status === 503);
    expect(unavailable.length + collects.filter((c) => c.status === 503).length).toBeGreaterThan(0);
    for (const answer of unavailable) {
      expect(answer.retryAfter).toBe('5');
      expect(answer.body).toEqual({ success: false, message: expect.any(String) });
    }
    // Once ready again, everything works: no connection the restart killed is used again.
    const afterwards = [...reads, ...collects].filter((answer) => answer.at > ready);
    expect(afterwards.length).toBeGreaterThan(10);
    expect(statuses(afterwards)).toEqual(new Set([200, 202]));

    // Every acknowledged event is stored, once the worker has caught up.
    await processed(base, 30_000);
    const check = new pg.Client({ connectionString: postgres?.url });
    await check.connect();
    const { rows } = await check.query<{ url: string }>(
      'SELECT url FROM events WHERE workspace_id = $1',
      [workspaceId],
    );
    await check.end();
    const stored = new Set(rows.map((row) => row.url));
    expect(acknowledged.length).toBeGreaterThan(100);
    expect(acknowledged.filter((url) => !stored.has(url))).toEqual([]);

    // The log: a warning per outage, no error for each request or job round that met it.
    server.kill('SIGTERM');
    const { code, stdout } = await output;
    expect(code).toBe(0);
    const entries = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
    const warnings = entries.filter((entry) => /database unreachable/.test(entry.msg));
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.length).toBeLessThanOrEqual(4);
  }, 90_000);
});
