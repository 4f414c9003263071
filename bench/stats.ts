// npm run bench (last part): GET .../stats over 30 days of one workspace with 1,000,000
// sessions (90% attributed to ≈10,000 organisations), ≈3 page views each over ≈500 pages,
// 20 sources, 20 industries and 30 countries, all skewed as real traffic is. Median and p95
// of 20 calls without and with a segment, through the real HTTP API. Target: ≤ 300 ms median.
// Then the digests' query (what a daily or weekly digest lists) over the same data, timed as
// the digest job runs it (straight on the database), without and with the segment.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { latestPeriod } from '../src/notifications/digest-period.js';
import { digestOf } from '../src/notifications/digests.js';
import { benchApi } from './lib/api.js';
import { seedLargeWorkspace } from './lib/dataset.js';

const ORGANISATIONS = Number(process.env.BENCH_ORGANISATIONS ?? 10_000);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const TARGET_MS = 300;

const { db, call, done } = await benchApi();

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number;
};
/** Median and p95 of RUNS runs after a warm-up; `run` answers its time in ms. */
async function timedRuns(label: string, run: () => Promise<number>, what = `${RUNS} calls`) {
  await run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await run());
  const median = quantile(times, 0.5);
  console.log(
    `${label}: median ${median.toFixed(1)} ms, p95 ${quantile(times, 0.95).toFixed(1)} ms (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)}, ${what})`,
  );
  return median;
}
const timed = (label: string, url: string) =>
  timedRuns(label, async () => (await call('GET', url)).ms);

const ws = await seedLargeWorkspace(db, call, { organisations: ORGANISATIONS, sessions: SESSIONS });

const created = await call('POST', `/v1/workspaces/${ws}/segments`, {
  name: 'DACH',
  filters: {
    operator: 'AND',
    conditions: [{ field: 'country', comparison: 'in', value: ['DE', 'AT', 'CH'] }],
  },
});
const segment = (created.json as { uuid: string }).uuid;
const members = await sql<{ n: number }>`
  SELECT count(*)::int AS n FROM segment_members WHERE segment_id = ${segment}`.execute(db);

const day = (offset: number) =>
  new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
const range = `date_from=${day(29)}&date_to=${day(0)}`;
const whole = await timed('stats, 30 days, whole workspace', `/v1/workspaces/${ws}/stats?${range}`);
const segmented = await timed(
  `stats, 30 days, segment of ${members.rows[0]?.n} organisations`,
  `/v1/workspaces/${ws}/stats?${range}&segmentUuid=${segment}`,
);

async function timedDigest(
  trigger: 'digest.daily' | 'digest.weekly',
  segmentId: string | null,
  label: string,
) {
  const rule = {
    workspace_id: ws,
    id: randomUUID(),
    trigger,
    timezone: 'Europe/Berlin',
    segment_id: segmentId,
    owner_id: null,
  };
  const period = latestPeriod(trigger, rule.timezone, new Date());
  const { totals } = await digestOf(db, rule, period, 'http://localhost:3000');
  return timedRuns(
    label,
    async () => {
      const started = performance.now();
      await digestOf(db, rule, period, 'http://localhost:3000');
      return performance.now() - started;
    },
    `${totals.organisations} organisations, ${totals.sessions} sessions, ${RUNS} runs`,
  );
}
const digests = [
  await timedDigest('digest.daily', null, 'daily digest, whole workspace'),
  await timedDigest('digest.daily', segment, 'daily digest, segment'),
  await timedDigest('digest.weekly', null, 'weekly digest, whole workspace'),
  await timedDigest('digest.weekly', segment, 'weekly digest, segment'),
];

console.log('');
console.log(
  `digests (daily, daily segment, weekly, weekly segment): ${digests.map((ms) => ms.toFixed(0)).join(' / ')} ms median`,
);
console.log(
  `stats: ${whole.toFixed(0)} ms, with a segment ${segmented.toFixed(0)} ms (target ≤ ${TARGET_MS} median)`,
);

await done();
