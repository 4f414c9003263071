import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, client, createTestDatabase } from '../helpers/app.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import {
  finished,
  freePort,
  killStragglers,
  runFootfall,
  spawnFootfall,
  waitUntilReady,
} from '../helpers/process.js';
import { startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';

// Several real Footfall processes with roles (contract §19) on one database.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Pool;
let dir: string;
let env: Record<string, string>;
let api: ReturnType<typeof client>;
let apiBase: string;
let workspace: { uuid: string; tracking_script_id: string };

interface Running {
  role: string;
  base: string;
  child: ChildProcess;
  extra: Record<string, string>;
}

async function start(role: string, extra: Record<string, string> = {}, port?: number) {
  const listen = port ?? (await freePort());
  const child = spawnFootfall(['serve', '--role', role], {
    ...env,
    PORT: String(listen),
    ...extra,
  });
  const base = `http://127.0.0.1:${listen}`;
  await waitUntilReady(base, finished(child));
  return { role, base, child, extra } satisfies Running;
}

async function kill(process: Running): Promise<void> {
  const exited = finished(process.child);
  process.child.kill('SIGKILL');
  await exited;
}

const restart = async (process: Running) => {
  await kill(process);
  return start(process.role, process.extra, Number(new URL(process.base).port));
};

const inbox = async () =>
  Number((await sql.query('SELECT count(*) FROM ingest_inbox')).rows[0].count);

beforeAll(async () => {
  database = await createTestDatabase();
  sql = new pg.Pool({ connectionString: database.url, max: 2 });
  dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-roles-'));
  env = {
    DATABASE_URL: database.url,
    DATA_DIR: dir,
    HOST: '127.0.0.1',
    TOKEN_SECRET: randomBytes(32).toString('hex'),
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    COLLECT_RATE_LIMIT_PER_IP: '1000000',
  };
  const first = await start('api');
  apiBase = first.base;
  await runFootfall(['users', 'create', '--email', 'ops@example.com'], env);
  const token = (
    await runFootfall(['tokens', 'create', '--email', 'ops@example.com'], env)
  ).stdout.trim();
  api = client(apiBase, token);
  workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data;
}, 180_000);

afterAll(async () => {
  killStragglers();
  await sql.end();
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

/** The events stored per page URL, from the database. */
async function storedByUrl(): Promise<Map<string, number>> {
  const { rows } = await sql.query(
    'SELECT url, count(*)::int AS n FROM events WHERE workspace_id = $1 GROUP BY url',
    [workspace.uuid],
  );
  return new Map(rows.map((row) => [row.url as string, row.n as number]));
}

const page = (id: string) => `https://site.example/p/${id}`;

/** A request of `count` page views, each with an id of its own and a URL naming it. */
function request(count: number, visitor = randomUUID(), now = Date.now()) {
  const ids = Array.from({ length: count }, () => randomUUID());
  return {
    ids,
    body: visit(
      workspace.tracking_script_id,
      ids.map((id, i) => ({ ...pageview(page(id), now + i), id })),
      { visitor },
    ),
  };
}

describe('roles', () => {
  it('serve their own routes only; a visit collected on a collector is processed by a worker and read on an api process', async () => {
    const collecting = await start('collector');
    const working = await start('worker');
    try {
      const send = collector(collecting.base, { wait: false });
      // What a role does not serve is not there (404), as on a server without it.
      expect((await send(request(1).body)).status).toBe(202);
      expect((await collector(apiBase, { wait: false })(request(1).body)).status).toBe(404);
      expect((await collector(working.base, { wait: false })(request(1).body)).status).toBe(404);
      expect((await client(collecting.base)('GET', '/v1/workspaces')).status).toBe(404);
      expect((await client(working.base)('GET', '/v1/workspaces')).status).toBe(404);
      expect((await client(collecting.base)('GET', '/docs')).status).toBe(404);
      const script = `/t/${workspace.tracking_script_id}.js`;
      expect((await client(apiBase)('GET', script)).status).toBe(404);
      expect((await client(collecting.base)('GET', script)).status).toBe(200);
      for (const base of [apiBase, collecting.base, working.base]) {
        expect((await fetch(`${base}/healthz`)).status).toBe(200);
        expect((await fetch(`${base}/readyz`)).status).toBe(200);
      }

      // An identified visitor: the API lists sessions of organisations.
      // Forty minutes ago: the visit after it below is a session of its own.
      const visitor = randomUUID();
      const earlier = Date.now() - 40 * 60_000;
      const first = request(2, visitor, earlier);
      first.body.events.unshift({
        ...identify('https://site.example/', 'ana@roles-acme.com', earlier - 1),
        id: randomUUID(),
      });
      expect((await send(first.body)).body).toEqual({ accepted: 3 });
      let views: string[] = [];
      let last: unknown;
      const today = new Date(earlier).toISOString().slice(0, 10);
      await until(async () => {
        const sessions = await api(
          'GET',
          `/v1/workspaces/${workspace.uuid}/sessions?visitor_uuid=${visitor}&date_from=${today}`,
        );
        last = sessions.body;
        views = (sessions.body.data ?? []).flatMap((s: { views: { url: string }[] }) =>
          s.views.map((v) => v.url),
        );
        return views.length === 2;
      }, 20_000).catch((error) => {
        throw new Error(`${error.message}: ${JSON.stringify(last)}`);
      });
      expect(views.sort()).toEqual(first.ids.map(page).sort());

      // Back now, from an address nothing names. The collector has never heard of this
      // visitor (the worker, another process, learnt who they are): the worker names the
      // new session as the one before.
      expect((await send(request(1, visitor).body)).status).toBe(202);
      let domains: (string | null)[] = [];
      await until(async () => {
        const { rows } = await sql.query(
          `SELECT o.domain FROM sessions s LEFT JOIN organisations o
             ON o.workspace_id = s.workspace_id AND o.id = s.organisation_id
           WHERE s.workspace_id = $1 AND s.visitor_id = $2`,
          [workspace.uuid, visitor],
        );
        domains = rows.map((row) => row.domain);
        return domains.length === 2;
      }, 20_000);
      expect(domains).toEqual(['roles-acme.com', 'roles-acme.com']);
    } finally {
      await Promise.all([kill(collecting), kill(working)]);
    }
  }, 180_000);

  it('store a request sent three times once, event by event', async () => {
    const collecting = await start('collector');
    const working = await start('worker');
    try {
      const send = collector(collecting.base, { wait: false });
      const sent = request(3);
      const answers = await Promise.all([send(sent.body), send(sent.body)]);
      expect(answers.map((a) => a.status)).toEqual([202, 202]);
      // Later, with one more event: the tracker sends what it still holds with what is new.
      const more = { ...sent.body, events: [...sent.body.events, request(1).body.events[0]] };
      expect((await send(more)).status).toBe(202);
      await until(async () => (await inbox()) === 0, 20_000);
      const stored = await storedByUrl();
      for (const id of sent.ids) expect(stored.get(page(id))).toBe(1);
      const extra = more.events[3] as { url: string };
      expect(stored.get(extra.url)).toBe(1);
    } finally {
      await Promise.all([kill(collecting), kill(working)]);
    }
  }, 180_000);
});

describe('a SIGKILL of any process at any moment under load', () => {
  it('loses no acknowledged event and stores none twice', async () => {
    let processes = [
      await start('collector'),
      await start('worker', { INGEST_BATCH: '20' }),
      await start('worker', { INGEST_BATCH: '20' }),
    ];
    const collectorBase = processes[0]?.base ?? '';
    const send = collector(collectorBase, { wait: false });
    const acknowledged = new Set<string>();
    const sent = new Set<string>();
    let stop = false;
    let abandoned = false;
    let answers503 = 0;
    let refused = 0;
    // Ten visitors, each sending as the tracker does: the same request again until it is
    // acknowledged (a refused connection or a 503 while its collector is down), and now and
    // then an acknowledged one again.
    const visitorLoop = async () => {
      const visitor = randomUUID();
      while (!stop) {
        const next = request(1 + Math.floor(Math.random() * 3), visitor);
        for (const id of next.ids) sent.add(id);
        for (;;) {
          let status = 0;
          try {
            status = (await send(next.body)).status;
          } catch {
            refused++;
          }
          if (status === 202) break;
          if (abandoned) return;
          if (status === 503) answers503++;
          else if (status !== 0) throw new Error(`collect answered ${status}`);
          await sleep(100);
        }
        for (const id of next.ids) acknowledged.add(id);
        if (Math.random() < 0.1) await send(next.body).catch(() => {});
        await sleep(30 + Math.random() * 50);
      }
    };
    const load = Array.from({ length: 10 }, visitorLoop);
    // Kill one process at a random moment, six times, and start it again each time.
    let kills = 0;
    try {
      while (kills < 6) {
        await sleep(500 + Math.random() * 1500);
        const victim = Math.floor(Math.random() * processes.length);
        const again = await restart(processes[victim] as Running);
        processes = processes.map((p, i) => (i === victim ? again : p));
        kills++;
      }
      stop = true;
      await Promise.all(load);
      await untilEmpty();
    } finally {
      stop = true;
      abandoned = true;
      await Promise.all(processes.map(kill));
    }
    const stored = await storedByUrl();
    expect(kills).toBeGreaterThanOrEqual(6);
    expect(acknowledged.size).toBeGreaterThan(100);
    const lost = [...acknowledged].filter((id) => stored.get(page(id)) !== 1);
    expect(lost).toEqual([]);
    // Every event sent was finally acknowledged (the loop retried), each stored once.
    expect([...sent].filter((id) => stored.get(page(id)) !== 1)).toEqual([]);
    const quarantined = await sql.query('SELECT count(*)::int AS n FROM ingest_quarantine');
    expect(quarantined.rows[0].n).toBe(0);
    console.info(
      `chaos: ${kills} kills, ${acknowledged.size} events acknowledged and stored once, ${refused} refused connections and ${answers503} 503s retried`,
    );
  }, 420_000);
});

async function untilEmpty(): Promise<void> {
  await until(async () => (await inbox()) === 0, 60_000);
}

describe('back-pressure', () => {
  it('answers 503 with Retry-After above INGEST_BACKLOG_MAX, and takes events again once a worker catches up', async () => {
    const collecting = await start('collector', { INGEST_BACKLOG_MAX: '20' });
    const send = collector(collecting.base, { wait: false });
    let working: Running | undefined;
    try {
      // No worker: the backlog grows past 20 events.
      for (let i = 0; i < 3; i++) expect((await send(request(10).body)).status).toBe(202);
      let answer: Answer | undefined;
      await until(async () => {
        answer = await send(request(1).body);
        return answer.status === 503;
      }, 10_000);
      expect(answer?.headers.get('retry-after')).toBe('5');
      expect(answer?.body).toEqual({ success: false, message: expect.stringMatching(/waiting/) });
      const metrics = await (await fetch(`${collecting.base}/metrics`)).text();
      expect(Number(/^footfall_ingest_backlog_events (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(
        20,
      );
      expect(Number(/^footfall_ingest_lag_seconds (\S+)/m.exec(metrics)?.[1])).toBeGreaterThan(0);

      working = await start('worker');
      await until(async () => (await send(request(1).body)).status === 202, 30_000);
      await untilEmpty();
    } finally {
      await kill(collecting);
      if (working) await kill(working);
    }
  }, 180_000);
});

describe('the quarantine', () => {
  it('keeps a request processing cannot handle, with its reason, and `footfall ingest replay` processes it once the cause is gone', async () => {
    const collecting = await start('collector');
    const working = await start('worker');
    try {
      // What processing cannot handle: here a rule of the database's that refuses one page.
      await sql.query(
        "ALTER TABLE events ADD CONSTRAINT no_poison CHECK (url NOT LIKE '%poison%') NOT VALID",
      );
      const send = collector(collecting.base, { wait: false });
      const now = Date.now();
      const poisoned = visit(workspace.tracking_script_id, [
        pageview('https://site.example/poison', now),
      ]);
      const good = request(2);
      expect((await send(poisoned)).status).toBe(202);
      expect((await send(good.body)).status).toBe(202);
      await untilEmpty();
      const kept = await sql.query('SELECT reason, detail, events FROM ingest_quarantine');
      expect(kept.rows).toEqual([{ reason: 'constraint', detail: 'SQLSTATE 23514', events: 1 }]);
      const stored = await storedByUrl();
      for (const id of good.ids) expect(stored.get(page(id))).toBe(1);
      expect(stored.has('https://site.example/poison')).toBe(false);
      const metrics = await (await fetch(`${working.base}/metrics`)).text();
      expect(metrics).toMatch(/^footfall_ingest_quarantined_total\{reason="constraint"\} 1$/m);

      await sql.query('ALTER TABLE events DROP CONSTRAINT no_poison');
      const replay = await runFootfall(['ingest', 'replay'], env);
      expect(replay).toMatchObject({ code: 0, stdout: '1 request sent back to be processed\n' });
      await until(
        async () => (await storedByUrl()).get('https://site.example/poison') === 1,
        20_000,
      );
      expect((await sql.query('SELECT count(*)::int AS n FROM ingest_quarantine')).rows[0].n).toBe(
        0,
      );
    } finally {
      await Promise.all([kill(collecting), kill(working)]);
    }
  }, 180_000);
});

describe('background jobs with three workers', () => {
  it('do each piece of work once: one webhook per event', async () => {
    const receiver = await startReceiver([200]);
    await api('PATCH', '/radar/operator/v1/webhooks', {
      delivery: { webhook_url: receiver.url, webhook_secret: 'whsec-roles-0123456789' },
    });
    const workers = [await start('worker'), await start('worker'), await start('worker')];
    const collecting = await start('collector');
    try {
      const send = collector(collecting.base, { wait: false });
      const yesterday = Date.now() - 86_400_000;
      for (const domain of ['acme-one.com', 'acme-two.com', 'acme-three.com']) {
        const answer = await send(
          visit(workspace.tracking_script_id, [
            identify('https://site.example/', `ana@${domain}`, yesterday),
            pageview('https://site.example/pricing', yesterday + 1000),
          ]),
        );
        expect(answer.status).toBe(202);
      }
      const identified = () =>
        receiver.received
          .map((r) => JSON.parse(r.body) as { event: string; data?: { domain?: string } })
          .filter((body) => body.event === 'organisation.identified');
      await until(() => identified().length >= 3, 30_000);
      // Long enough for any second delivery of the same event to arrive.
      await sleep(3000);
      expect(identified()).toHaveLength(3);
      expect(new Set(receiver.received.map((r) => r.body)).size).toBe(receiver.received.length);
    } finally {
      await Promise.all([...workers, collecting].map(kill));
      await receiver.close();
    }
  }, 180_000);
});
