import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createUser } from '../../src/auth/users.js';
import { type Config, loadConfig } from '../../src/config.js';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { type ReadRouting, routeReads } from '../../src/db/read-routing.js';
import type { Api } from '../../src/http/api.js';
import { loadKeys } from '../../src/http/keys.js';
import { Tokens } from '../../src/http/tokens.js';
import { client } from '../helpers/app.js';
import { type OwnPostgres, startOwnPostgres } from '../helpers/own-postgres.js';
import {
  finished,
  freePort,
  killStragglers,
  spawnFootfall,
  waitUntilReady,
} from '../helpers/process.js';
import { until } from '../helpers/wait.js';

// A primary of the test's own and a real streaming replica of it (pg_basebackup -R), both
// logging every statement with its parameters: each read below carries a marker of its own
// (a name, a referrer, a day) and the servers' logs say which one ran it.
const MAX_LAG_SECONDS = 3;
const today = new Date().toISOString().slice(0, 10);

let primary: OwnPostgres | undefined;
let replica: OwnPostgres | undefined;
let dataDir: string;
let config: Config;
let database: Db;
const servers: { app: Api; reads: ReadRouting; close(): Promise<void>; url: string }[] = [];
const warnings: string[] = [];
let token: string;
let workspace: string;
let call: ReturnType<typeof client>;
const organisations = [randomUUID(), randomUUID(), randomUUID()];

/** An api process of its own (its own pools and replica watch), as behind a load balancer. */
async function startServer() {
  const primaryDb = connect(config.databaseUrl as string);
  const reads = routeReads(config, primaryDb, (message) => warnings.push(message));
  const keys = await loadKeys(config);
  const tokens = new Tokens(primaryDb.db, keys.tokenSigning);
  const app = await buildApp({ config, db: primaryDb.db, reads, keys, tokens });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const close = async () => {
    await app.close();
    await reads.close();
    await primaryDb.close();
  };
  const server = { app, reads, close, url: `http://127.0.0.1:${port}` };
  servers.push(server);
  return server;
}

let cursor = { primary: 0, replica: 0 };
/** Marks where the servers' logs are now: `ran()` looks only at what came after. */
async function mark() {
  cursor = {
    primary: (await primary?.log())?.length ?? 0,
    replica: (await replica?.log())?.length ?? 0,
  };
}
/** Which servers ran a statement with `marker` in it (or its parameters) since mark(). */
async function ran(marker: string): Promise<string[]> {
  const where: string[] = [];
  if ((await primary?.log())?.slice(cursor.primary).includes(marker)) where.push('primary');
  if ((await replica?.log())?.slice(cursor.replica).includes(marker)) where.push('replica');
  return where;
}
const unique = (what: string) => `${what}-${randomBytes(4).toString('hex')}`;

async function metric(base: string, line: RegExp): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = line.exec(text)?.[1];
  return value === undefined ? undefined : Number(value);
}

async function onReplica<T>(query: (db: Db) => Promise<T>): Promise<T> {
  const db = connect((replica as OwnPostgres).url);
  try {
    return await query(db);
  } finally {
    await db.close();
  }
}
const statusOnReplica = (id: string) =>
  onReplica(async (db) => {
    const { rows } = await sql<{ status: string }>`
      SELECT status FROM organisations WHERE id = ${id}`.execute(db.db);
    return rows[0]?.status;
  });

beforeAll(async () => {
  primary = await startOwnPostgres(['log_statement=all']);
  replica = await primary.replica();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'footfall-replica-'));
  config = loadConfig({
    LOG_LEVEL: 'silent',
    TOKEN_SECRET: randomBytes(32).toString('hex'),
    DATA_DIR: dataDir,
    ONLINE_LOOKUPS: 'off',
    RATE_LIMIT_PER_MINUTE: '100000',
    DATABASE_URL: primary.url,
    DATABASE_READ_URL: replica.url,
    REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
  });
  database = connect(primary.url);
  await migrate(database.db);
  const user = await createUser(database.db, 'reader@example.com');
  token = (
    await new Tokens(database.db, (await loadKeys(config)).tokenSigning).issue(
      user.id,
      'test',
      null,
    )
  ).token;
  const first = await startServer();
  call = client(first.url, token);
  workspace = (await call('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data
    .uuid;
  for (const [i, id] of organisations.entries()) {
    await sql`INSERT INTO organisations (workspace_id, id, domain)
      VALUES (${workspace}, ${id}, ${`org-${i}.example`})`.execute(database.db);
    await sql`INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at,
        ended_at, referrer)
      VALUES (${workspace}, ${randomUUID()}, ${randomUUID()}, ${id}, now() - interval '1 minute',
        now(), 'https://referrer.example/')`.execute(database.db);
  }
  // The replica has the data, and the app has seen it answer.
  await until(
    async () =>
      (await onReplica((db) => sql`SELECT 1 FROM sessions`.execute(db.db))).rows.length === 3,
  );
  await until(async () => (await metric(first.url, /^footfall_replica_up (\d+)/m)) === 1);
});

afterAll(async () => {
  killStragglers();
  for (const server of servers) await server.close();
  await database?.close();
  await primary?.remove();
  await rm(dataDir, { recursive: true, force: true });
});

const listed = (answer: { body: { data: { uuid: string }[] } }) =>
  answer.body.data.map((organisation) => organisation.uuid).sort();

describe('a read replica (DATABASE_READ_URL)', () => {
  it('serves lists, exports, stats and one organisation from the replica, writes from the primary', async () => {
    const base = `/v1/workspaces/${workspace}`;
    const reads = {
      organisations: unique('org-list'),
      search: unique('org-search'),
      sessions: unique('session-list'),
      orgCsv: unique('org-csv'),
      sessionCsv: unique('session-csv'),
      contacts: unique('contacts'),
    };
    await mark();
    // Markers that match nothing: each list answers empty, and its statement names the marker.
    expect((await call('GET', `${base}/organisations?name=${reads.organisations}`)).status).toBe(
      200,
    );
    const search = await call('POST', `${base}/organisations`, {
      filters: {
        operator: 'AND',
        conditions: [{ field: 'name', comparison: 'contains', value: reads.search }],
      },
    });
    expect(search.status).toBe(200);
    expect(
      (await call('GET', `${base}/sessions?date=${today}&referrer=${reads.sessions}`)).status,
    ).toBe(200);
    expect((await call('GET', `${base}/organisations.csv?name=${reads.orgCsv}`)).status).toBe(200);
    expect((await call('GET', `${base}/sessions.csv?referrer=${reads.sessionCsv}`)).status).toBe(
      200,
    );
    expect((await call('GET', `${base}/contacts?domain=${reads.contacts}`)).status).toBe(200);
    // Stats take no free text: a day far back marks them.
    expect(
      (await call('GET', `${base}/stats?date_from=2001-02-03&date_to=2001-02-04`)).status,
    ).toBe(200);
    for (const marker of [...Object.values(reads), '2001-02-03']) {
      expect({ marker, ran: await ran(marker) }).toEqual({ marker, ran: ['replica'] });
    }
    // And with data: every organisation, every session, read on the replica.
    const all = await call('GET', `${base}/organisations`);
    expect(listed(all)).toEqual([...organisations].sort());
    const sessions = await call('GET', `${base}/sessions?date=${today}`);
    expect(sessions.body.data).toHaveLength(3);
    const one = await call('GET', `${base}/organisations/${organisations[0]}`);
    expect(one.body.data.uuid).toBe(organisations[0]);

    // A write goes to the primary, and its fence with it; the replica runs no write.
    const tag = unique('tag');
    await mark();
    const tagged = await call('POST', `${base}/organisations/${organisations[0]}/tags`, {
      tag_name: tag,
    });
    expect(tagged.status).toBe(200);
    expect(await ran(tag)).toEqual(['primary']);
    expect((await primary?.log())?.slice(cursor.primary)).toContain('INSERT INTO read_fences');

    const counted = await metric(
      servers[0]?.url as string,
      /^footfall_database_reads_total\{server="replica",reason="replica"\} (\d+)/m,
    );
    expect(counted).toBeGreaterThanOrEqual(10);
  });

  it('never shows a user a list older than their own write, with replay paused, on any api process', async () => {
    const [first] = servers;
    const second = await startServer();
    await until(async () => (await metric(second.url, /^footfall_replica_up (\d+)/m)) === 1);
    const base = `/v1/workspaces/${workspace}`;
    const hidden = organisations[1] as string;
    await onReplica((db) => sql`SELECT pg_wal_replay_pause()`.execute(db.db));
    try {
      // Hide an organisation through one process, and list at once through both.
      const patched = await client(first?.url as string, token)(
        'PATCH',
        `${base}/organisations/${hidden}`,
        { status: 'hidden' },
      );
      expect(patched.status).toBe(200);
      await mark();
      for (const server of [first, second]) {
        const marker = unique('after-write');
        const list = await client(server?.url as string, token)(
          'GET',
          `${base}/organisations?name=${marker}`,
        );
        expect(list.status).toBe(200);
        const page = await client(server?.url as string, token)('GET', `${base}/organisations`);
        expect(listed(page)).not.toContain(hidden);
        expect(listed(page)).toHaveLength(2);
        expect(await ran(marker)).toEqual(['primary']);
      }
      // The replica really is behind: had the list come from it, the organisation would show.
      expect(await statusOnReplica(hidden)).toBe('lead');
      expect(
        await metric(
          second.url,
          /^footfall_database_reads_total\{server="primary",reason="not_replayed"\} (\d+)/m,
        ),
      ).toBeGreaterThanOrEqual(2);
    } finally {
      await onReplica((db) => sql`SELECT pg_wal_replay_resume()`.execute(db.db));
    }
    // Once the replica has replayed the write, the same user's reads go back to it.
    await until(async () => (await statusOnReplica(hidden)) === 'hidden');
    await until(async () => {
      await mark();
      const marker = unique('replayed');
      const list = await call('GET', `${base}/organisations?name=${marker}`);
      return list.status === 200 && (await ran(marker)).join() === 'replica';
    });
    expect(listed(await call('GET', `${base}/organisations`))).not.toContain(hidden);
  });

  it('reads from the primary while the replica lags more than the bound, and says how far', async () => {
    const base = `/v1/workspaces/${workspace}`;
    await onReplica((db) => sql`SELECT pg_wal_replay_pause()`.execute(db.db));
    try {
      // Someone else's write (no fence for our user): only the lag keeps us off the replica.
      await sql`UPDATE organisations SET score = 7 WHERE id = ${organisations[2]}`.execute(
        database.db,
      );
      const url = servers[0]?.url as string;
      await until(
        async () =>
          ((await metric(url, /^footfall_replica_lag_seconds (\S+)/m)) ?? 0) > MAX_LAG_SECONDS,
      );
      await mark();
      const marker = unique('lagging');
      expect((await call('GET', `${base}/organisations?name=${marker}`)).status).toBe(200);
      expect(await ran(marker)).toEqual(['primary']);
      expect(
        await metric(
          url,
          /^footfall_database_reads_total\{server="primary",reason="lagging"\} (\d+)/m,
        ),
      ).toBeGreaterThanOrEqual(1);
      expect(warnings.some((warning) => /read replica is \d+ s behind/.test(warning))).toBe(true);
    } finally {
      await onReplica((db) => sql`SELECT pg_wal_replay_resume()`.execute(db.db));
    }
    await until(
      async () =>
        (await metric(servers[0]?.url as string, /^footfall_replica_lag_seconds (\S+)/m)) === 0,
    );
  });

  it('is what `footfall serve` does with DATABASE_READ_URL set', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawnFootfall(['serve', '--role', 'api'], {
      DATABASE_URL: config.databaseUrl as string,
      DATABASE_READ_URL: config.databaseReadUrl as string,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      TOKEN_SECRET: config.tokenSecret as string,
    });
    const output = finished(child);
    try {
      await waitUntilReady(url, output);
      await until(async () => (await metric(url, /^footfall_replica_up (\d+)/m)) === 1);
      await mark();
      const marker = unique('served');
      const list = await client(url, token)(
        'GET',
        `/v1/workspaces/${workspace}/organisations?name=${marker}`,
      );
      expect(list.status).toBe(200);
      expect(await ran(marker)).toEqual(['replica']);
    } finally {
      child.kill('SIGTERM');
    }
    const { code, stdout, stderr } = await output;
    expect(code).toBe(0);
    expect(stdout + stderr).not.toContain(config.databaseReadUrl as string);
  });

  it('reads from the primary when the replica is stopped, and says so', async () => {
    const base = `/v1/workspaces/${workspace}`;
    await replica?.stop();
    await mark();
    // At once, before the next look at the replica has noticed: no request fails.
    const marker = unique('stopped');
    const list = await call('GET', `${base}/organisations?name=${marker}`);
    expect(list.status).toBe(200);
    const sessions = await call('GET', `${base}/sessions?date=${today}`);
    expect(sessions.status).toBe(200);
    expect(sessions.body.data).toHaveLength(3);
    const stats = await call('GET', `${base}/stats?date_from=${today}&date_to=${today}`);
    expect(stats.status).toBe(200);
    const csv = await fetch(`${servers[0]?.url}${base}/organisations.csv`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(csv.status).toBe(200);
    expect((await csv.text()).split('\n').filter(Boolean)).toHaveLength(3); // header + 2 leads
    expect(await ran(marker)).toEqual(['primary']);
    const url = servers[0]?.url as string;
    await until(async () => (await metric(url, /^footfall_replica_up (\d+)/m)) === 0);
    expect(warnings.some((warning) => warning.includes('read replica is unreachable'))).toBe(true);
    expect(warnings.join('\n')).not.toContain((replica as OwnPostgres).url);
  });
});
