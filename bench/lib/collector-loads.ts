// The collector benchmarks' loads and server: shared by bench/collector.ts (one version,
// each load against a bare endpoint) and bench/collector-ab.ts (two versions in turn).

import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import dgram from 'node:dgram';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { INGEST_SHARDS } from '../../src/ingest/inbox.js';
import { ownCpuSeconds, treeCpuSeconds } from './cpu.js';
import { benchDatabase } from './database.js';

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const VISITORS = 5000;
const UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const URL_ =
  'https://www.acme-analytics.example/solutions/enterprise/pricing?utm_source=newsletter&utm_medium=email&utm_campaign=autumn-launch';
const REFERRER =
  'https://www.google.com/search?q=b2b+website+visitor+identification+software+pricing';
const TITLE = 'Enterprise pricing — Acme Analytics: know which companies visit your website';

export interface Load {
  name: string;
  /** Events in each request. */
  events: number;
  /** Whether it writes to the server's fresh workspace (new organisations) or the usual one. */
  fresh: boolean;
  body(script: string): string;
  /** The visitor's address, sent as X-Forwarded-For; the connection's own when absent. */
  from?: () => string;
}

const visitors = Array.from({ length: VISITORS }, () => randomUUID());
// Chinanet's 1.48.0.0/16: a carrier the network owner names nobody for.
const carrierAddresses = Array.from(
  { length: VISITORS },
  (_, i) => `1.48.${Math.floor(i / 250)}.${(i % 250) + 1}`,
);
const sessions = visitors.map(() => randomUUID());
// Unique across runs and servers, so every collected domain is new.
let domains = 0;
const run = randomUUID().slice(0, 8);

/** One page view from one of the known visitors, in its session. */
function returningVisit(script: string): string {
  const i = Math.floor(Math.random() * VISITORS);
  return JSON.stringify({
    tracking_script_id: script,
    anonymous_id: visitors[i],
    session_uuid: sessions[i],
    events: [
      {
        type: 'pageview',
        ts: Date.now(),
        url: `${URL_}&page=${i}`,
        referrer: REFERRER,
        title: TITLE,
      },
    ],
  });
}

const ALL_LOADS: Load[] = [
  {
    name: 'new visitors',
    events: 2,
    fresh: true,
    body: (script) => {
      const ts = Date.now();
      return JSON.stringify({
        tracking_script_id: script,
        anonymous_id: randomUUID(),
        session_uuid: randomUUID(),
        events: [
          { type: 'pageview', ts, url: URL_, referrer: REFERRER, title: TITLE },
          {
            type: 'identify',
            ts,
            url: URL_,
            email: `buyer@company-${run}-${++domains}.com`,
            traits: { plan: 'enterprise' },
          },
        ],
      });
    },
  },
  { name: 'repeat visitors', events: 1, fresh: false, body: returningVisit },
  {
    name: 'unnamed visitors',
    events: 1,
    fresh: false,
    body: returningVisit,
    from: () => carrierAddresses[Math.floor(Math.random() * VISITORS)] as string,
  },
];

/** The loads to run: all, or those BENCH_LOADS names ("repeat visitors,new visitors"). */
export function chosenLoads(): Load[] {
  const chosen = process.env.BENCH_LOADS?.split(',').map((name) => name.trim());
  const loads = ALL_LOADS.filter((load) => !chosen || chosen.includes(load.name));
  if (loads.length === 0) throw new Error(`BENCH_LOADS names no load: ${process.env.BENCH_LOADS}`);
  return loads;
}

/** Drives `url` with a load's bodies for `seconds`, CONNECTIONS at a time. */
export function drive(
  url: string,
  load: Load,
  script: string,
  seconds: number,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        connections: CONNECTIONS,
        duration: seconds,
        headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA },
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              body: load.body(script),
              ...(load.from
                ? { headers: { ...request.headers, 'x-forwarded-for': load.from() } }
                : {}),
            }),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('error', reject);
  });
}

/**
 * Until the server's inbox is empty. Asked of its database, not of /metrics: a scrape sums
 * the whole inbox, and when the benches polled /metrics every 50–200 ms through a drain of
 * 135,000 requests, those sums took 24 of PostgreSQL's 130 busy seconds, counted as the cost
 * of processing (docs/performance.md).
 */
export async function drained(server: BenchServer): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50)); // requests still in flight
  while (await server.waiting()) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** A running bench server (bench/server.ts of some checkout) over a database of its own. */
export interface BenchServer {
  url: string;
  script: string;
  workspace: string;
  freshScript: string;
  freshWorkspace: string;
  /** Rows of a table in a workspace. */
  count(table: string, workspace: string): Promise<number>;
  /** The server's metrics, as name{labels} → value. */
  metrics(): Promise<Map<string, number>>;
  /** Whether acknowledged requests wait in its inbox (false for a version without one). */
  waiting(): Promise<boolean>;
  /**
   * Seconds since the oldest request waiting in its inbox was acknowledged (0: none), as
   * footfall_ingest_lag_seconds says but from the oldest row of each lane, not a sum over the
   * inbox; null for a version without one.
   */
  lag(): Promise<number | null>;
  /**
   * CPU seconds so far of the server (with its worker processes), of its process alone, and
   * of its (embedded) database; null where unknown.
   */
  cpu(): { server: number | null; collector: number | null; database: number | null };
  /** Stops (`stop`) or starts again (`start`) the server's worker processes (BENCH_WORKERS). */
  workers(action: 'stop' | 'start'): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `bench/server.ts` of the checkout in `root` (this one by default) over a fresh
 * database, with online lookups on (BENCH_ONLINE_LOOKUPS=off turns them off) and a DNS
 * server that never answers and a registry port nobody listens on: lookups end only at
 * their deadlines or at once, in the background.
 */
export async function startBenchServer(
  root = path.resolve(import.meta.dirname, '../..'),
): Promise<BenchServer> {
  const db = await benchDatabase();
  const deadDns = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => deadDns.bind(0, '127.0.0.1', resolve));
  const server: ChildProcess = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      '--import',
      'tsx',
      'bench/server.ts',
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        BENCH_DATABASE_URL: db.url,
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
        TRUST_PROXY: '127.0.0.1',
        ONLINE_LOOKUPS: process.env.BENCH_ONLINE_LOOKUPS ?? 'on',
        DNS_SERVERS: `127.0.0.1:${deadDns.address().port}`,
        RDAP_URL: 'http://127.0.0.1:9/',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  process.on('exit', () => server.kill('SIGKILL'));
  const stdout = server.stdout as NonNullable<ChildProcess['stdout']>;
  // The server's log shares its stdout; its one line of JSON with `script` says it is ready.
  const ready = await new Promise<{
    url: string;
    script: string;
    workspace: string;
    freshScript: string;
    freshWorkspace: string;
  }>((resolve, reject) => {
    const lines = createInterface({ input: stdout });
    lines.on('line', (line) => {
      if (line.includes('"script"')) {
        lines.close();
        resolve(JSON.parse(line));
      }
    });
    server.on('exit', (code) => reject(new Error(`the bench server in ${root} exited (${code})`)));
  });
  stdout.resume();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const { rows: inbox } = await client.query(
    `SELECT to_regclass('ingest_inbox') IS NOT NULL AS is`,
  );
  const hasInbox = inbox[0].is === true;
  return {
    ...ready,
    count: async (table, workspace) =>
      Number(
        (await client.query(`SELECT count(*) FROM ${table} WHERE workspace_id = $1`, [workspace]))
          .rows[0].count,
      ),
    metrics: async () =>
      new Map(
        (await (await fetch(`${ready.url}/metrics`)).text())
          .split('\n')
          .filter((line) => line && !line.startsWith('#'))
          .map((line) => {
            const at = line.lastIndexOf(' ');
            return [line.slice(0, at), Number(line.slice(at + 1))] as const;
          }),
      ),
    // One probe of the lanes' index: the backlog gauge of /metrics sums the whole inbox.
    waiting: async () =>
      hasInbox &&
      ((await client.query('SELECT 1 FROM ingest_inbox ORDER BY shard, id LIMIT 1')).rowCount ??
        0) > 0,
    lag: async () => {
      if (!hasInbox) return null;
      const { rows } = await client.query(
        `SELECT coalesce(extract(epoch FROM now() - min(o.received_at)), 0)::float8 AS lag
         FROM generate_series(0, $1::int - 1) lane, LATERAL (
           SELECT received_at FROM ingest_inbox WHERE shard = lane ORDER BY id LIMIT 1) o`,
        [INGEST_SHARDS],
      );
      return Math.max(0, Number(rows[0].lag));
    },
    cpu: () => ({
      server: server.pid ? treeCpuSeconds(server.pid) : null,
      collector: server.pid ? ownCpuSeconds(server.pid) : null,
      database: db.pid ? treeCpuSeconds(db.pid) : null,
    }),
    workers: async (action) => {
      const response = await fetch(`${ready.url}/bench/workers/${action}`, { method: 'POST' });
      if (!response.ok) throw new Error(`bench workers ${action}: ${response.status}`);
    },
    stop: async () => {
      await client.end();
      server.kill('SIGTERM');
      await new Promise((resolve) => server.on('exit', resolve));
      await db.done();
      deadDns.close();
    },
  };
}
