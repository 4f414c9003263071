// npm run bench (part): lead scores (contract §17) over the benches' large workspace (10,000
// organisations, 1,000,000 sessions over 30 days, ≈3 page views each, with a software
// company's page paths so that /pricing, /contact and /demo are read by some), ten members
// owning ≈900 organisations each, a few customers, competitors and hidden ones, a tag and a
// custom field. Timed straight on the database, as the API and the scoring job run it:
// - the organisations list sorted by -score (a page of 50 and its organisations: what
//   GET .../organisations?sort=-score does), and the same for owner=me; median and p95 of
//   20 runs, the default order (-last_seen) as the baseline. Target: ≤ 100 ms median;
// - a full scoring of the workspace after a rule change: from saving the scoring to the
//   job's scoreDueWorkspace finishing, with the default rules and with a set using a tag, a
//   custom field and key pages; and the preview of a rule set (POST .../scoring/preview),
//   which runs on the request. Target: ≤ 60 s;
// - where the first page's time goes: loading its 50 organisations against loading 50 drawn
//   at random among those of the same score;
// - an incremental round: scoreMovedActivity after 300 organisations got a session today.
// The app is not started: its background jobs would score the workspace on their own.
import { sql } from 'kysely';
import { addMember } from '../src/accounts/store.js';
import { createUser } from '../src/auth/users.js';
import { createCustomField } from '../src/custom-fields/store.js';
import { connect } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { findOrganisationPage, type OrganisationFilters } from '../src/organisations/list.js';
import { loadOrganisations } from '../src/organisations/read.js';
import { scoreDueWorkspace, scoreMovedActivity } from '../src/scoring/job.js';
import { previewScores } from '../src/scoring/score.js';
import {
  DEFAULT_SCORING,
  requireScoring,
  type ScoringInput,
  saveScoring,
} from '../src/scoring/settings.js';
import { createWorkspace } from '../src/workspaces/store.js';
import { benchDatabase } from './lib/database.js';
import { seedWorkspace } from './lib/dataset.js';

const ORGANISATIONS = Number(process.env.BENCH_ORGANISATIONS ?? 10_000);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const MEMBERS = 10;
const PAGE = 50;
const LIST_TARGET_MS = 100;
const FULL_TARGET_S = 60;
/** Full scorings per rule set, alternating the sets so that every one changes scores. */
const FULL_RUNS = Number(process.env.BENCH_FULL_RUNS ?? 3);
const MOVED = 300;
const MOVED_ROUNDS = 5;

const database = await benchDatabase();
const { db, close } = connect(database.url);
await migrate(db);
const version = await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(db);
console.log(`PostgreSQL ${version.rows[0]?.v}`);

// Removed again whatever happens: a failed run leaves no database behind.
try {
  const quantile = (values: number[], q: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number;
  };
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const seconds = (value: number) => `${(value / 1000).toFixed(2)} s`;
  const since = (started: number) => performance.now() - started;

  // The workspace, its members and its data.
  const admin = await createUser(db, 'bench@example.com', 'Bench');
  const ws = (
    await createWorkspace(db, admin.id, {
      name: 'Bench',
      url: 'https://bench.example',
      usageLimit: 10_000_000,
    })
  ).id;
  await seedWorkspace(db, ws, { organisations: ORGANISATIONS, sessions: SESSIONS, pages: 'site' });
  const members: string[] = [];
  for (let i = 0; i < MEMBERS; i++) {
    const user = await createUser(db, `rep-${i}@bench.example`, `Rep ${i}`);
    await addMember(db, ws, user.id, 'member');
    members.push(user.id);
  }
  const setup = performance.now();
  // company-N: owned by member N % 11 (none for 10), 2 % customers, 1 % competitors, 1 % hidden;
  // tag `target-account` on 5 %, `newsletter` on 30 %; custom field `tier` on 80 %.
  await sql`
    UPDATE organisations o SET
      owner_id = CASE WHEN x.n % 11 < ${MEMBERS} THEN (${members}::uuid[])[1 + x.n % 11] END,
      status = CASE x.n % 100 WHEN 1 THEN 'customer' WHEN 2 THEN 'customer'
        WHEN 3 THEN 'competitor' WHEN 4 THEN 'hidden' ELSE 'lead' END
    FROM (SELECT id, substring(domain FROM '[0-9]+')::int AS n FROM organisations
          WHERE workspace_id = ${ws}) x
    WHERE o.workspace_id = ${ws} AND o.id = x.id`.execute(db);
  await sql`
    INSERT INTO organisation_tags (workspace_id, organisation_id, name)
    SELECT workspace_id, id, t.name FROM organisations
    CROSS JOIN LATERAL (SELECT substring(domain FROM '[0-9]+')::int AS n) x
    JOIN (VALUES ('target-account', 20, 7), ('newsletter', 10, 3)) AS t(name, every, below)
      ON x.n % t.every < t.below
    WHERE workspace_id = ${ws}`.execute(db);
  await createCustomField(db, ws, {
    key: 'tier',
    name: 'Tier',
    type: 'select',
    options: ['enterprise', 'mid-market', 'smb'].map((key) => ({ key, label: key, color: '' })),
  });
  await sql`
    INSERT INTO custom_field_values (workspace_id, organisation_id, key, value)
    SELECT workspace_id, id, 'tier',
      to_jsonb((ARRAY['enterprise', 'mid-market', 'mid-market', 'smb'])[1 + x.n % 5])
    FROM organisations CROSS JOIN LATERAL (SELECT substring(domain FROM '[0-9]+')::int AS n) x
    WHERE workspace_id = ${ws} AND x.n % 5 < 4`.execute(db);
  await sql`VACUUM ANALYZE`.execute(db);
  const readers = await sql<{ page: string; organisations: number; views: number }>`
    SELECT k.page, count(DISTINCT s.organisation_id)::int AS organisations, count(*)::int AS views
    FROM unnest(ARRAY['/pricing', '/contact', '/demo']) AS k(page)
    JOIN events e ON e.workspace_id = ${ws} AND e.url = 'https://bench.example' || k.page
    JOIN sessions s ON s.workspace_id = e.workspace_id AND s.id = e.session_id
    WHERE s.organisation_id IS NOT NULL
    GROUP BY k.page ORDER BY views DESC`.execute(db);
  console.log(
    `key pages read: ${readers.rows.map((r) => `${r.page} ${r.views} views by ${r.organisations} organisations`).join(', ')}; members, statuses, tags and values set in ${seconds(since(setup))}`,
  );

  const distribution = async () => {
    const { rows } = await sql<{ leads: number; above: number; mean: number; top: number }>`
      SELECT count(*)::int AS leads, count(*) FILTER (WHERE score > 60)::int AS above,
        round(avg(score), 1)::float8 AS mean, count(*) FILTER (WHERE score = 100)::int AS top
      FROM organisations WHERE workspace_id = ${ws} AND status = 'lead'`.execute(db);
    const row = rows[0];
    return row
      ? `${row.above} of ${row.leads} leads above 60, ${row.top} at 100, mean ${row.mean}`
      : '';
  };

  // 0. The first full scoring (the defaults, nothing saved; every score written), then the
  // job's first rounds of moved activity: every organisation active today or yesterday, as
  // none has been scored with its activity yet (what a deployment of migration 0025 meets).
  let started = performance.now();
  if (!(await scoreDueWorkspace(db))) throw new Error('the workspace was not due');
  console.log(`first full scoring (defaults): ${seconds(since(started))}; ${await distribution()}`);
  started = performance.now();
  const drained: number[] = [];
  for (;;) {
    const round = performance.now();
    const taken = await scoreMovedActivity(db);
    drained.push(since(round));
    if (taken < 2_000) break;
  }
  const active = await sql<{ n: number }>`
    SELECT count(DISTINCT organisation_id)::int AS n FROM stats_organisation_days
    WHERE workspace_id = ${ws} AND day >= (now() AT TIME ZONE 'UTC')::date - 1`.execute(db);
  console.log(
    `first moved-activity rounds: ${active.rows[0]?.n} organisations active today or yesterday, ${drained.length} calls, ${seconds(since(started))} (${drained.map((t) => seconds(t)).join(', ')})`,
  );

  // 1 and 2. The list.
  async function timedList(label: string, filters: OrganisationFilters) {
    let total = 0;
    const run = async () => {
      const begun = performance.now();
      const page = await findOrganisationPage(db, filters, { offset: 0, limit: PAGE });
      const found = since(begun);
      const organisations = await loadOrganisations(db, ws, page.ids);
      if (organisations.length !== Math.min(PAGE, page.total))
        throw new Error(`${label}: short page`);
      total = page.total;
      return { all: since(begun), found };
    };
    await run(); // warm-up
    const times: { all: number; found: number }[] = [];
    for (let i = 0; i < RUNS; i++) times.push(await run());
    const all = times.map((t) => t.all);
    const median = quantile(all, 0.5);
    const page = quantile(
      times.map((t) => t.found),
      0.5,
    );
    const loading = quantile(
      times.map((t) => t.all - t.found),
      0.5,
    );
    console.log(
      `${label}: median ${ms(median)}, p95 ${ms(quantile(all, 0.95))} (page ${ms(page)}, organisations ${ms(loading)}; ${total} match, ${RUNS} runs)`,
    );
    return median;
  }
  const byScore = { key: 'score', descending: true } as const;
  const listed = [
    await timedList('list, -last_seen (baseline)', { workspaceId: ws, range: null }),
    await timedList('list, -score', { workspaceId: ws, range: null, sort: byScore }),
    await timedList('list, owner=me, -score', {
      workspaceId: ws,
      range: null,
      sort: byScore,
      ownerId: members[0],
    }),
  ];

  // Where the first page's time goes: loading its organisations' figures, read from all of
  // their sessions. The same for 50 organisations drawn at random among those of its score
  // (here the ties at the top are broken by id, and the data set's busiest organisations
  // have the lowest ids).
  const first = await findOrganisationPage(
    db,
    { workspaceId: ws, range: null, sort: byScore },
    { offset: 0, limit: PAGE },
  );
  const drawn = await sql<{ id: string }>`
    SELECT id FROM organisations
    WHERE workspace_id = ${ws} AND status = 'lead'
      AND score = (SELECT score FROM organisations WHERE workspace_id = ${ws} AND id = ${first.ids[0]})
    ORDER BY md5(id::text) LIMIT ${PAGE}`.execute(db);
  for (const [label, ids] of [
    ["the first page's 50 organisations", first.ids],
    ['50 organisations drawn at its score', drawn.rows.map((row) => row.id)],
  ] as const) {
    const counted = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM sessions
      WHERE workspace_id = ${ws} AND organisation_id = ANY(${ids}::uuid[])`.execute(db);
    await loadOrganisations(db, ws, [...ids]);
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const begun = performance.now();
      await loadOrganisations(db, ws, [...ids]);
      times.push(since(begun));
    }
    console.log(
      `loading ${label} (${counted.rows[0]?.n} sessions): median ${ms(quantile(times, 0.5))}`,
    );
  }

  // 3. Full scorings after a rule change, and the preview of each rule set.
  const condition = (field: string, comparison: string, value: unknown) => ({
    operator: 'AND',
    conditions: [{ field, comparison, value }],
  });
  const CUSTOM: ScoringInput = {
    rules: [
      { name: 'Target account', filters: condition('tag', 'equal', 'target-account'), points: 30 },
      { name: 'Enterprise', filters: condition('tier', 'equal', 'enterprise'), points: 20 },
    ],
    key_pages: [
      { url_contains: '/demo', points: 40 },
      { url_contains: '/pricing', points: 20 },
    ],
  };
  const sets: [string, ScoringInput][] = [
    ['tag, custom field, 2 key pages', CUSTOM],
    ['defaults (3 rules, 3 key pages)', DEFAULT_SCORING as ScoringInput],
  ];
  const full = new Map<string, number[]>(sets.map(([name]) => [name, []]));
  for (let i = 0; i < FULL_RUNS; i++) {
    for (const [name, scoring] of sets) {
      const begun = performance.now();
      await requireScoring(db, ws, scoring);
      await saveScoring(db, ws, scoring);
      if (!(await scoreDueWorkspace(db))) throw new Error('the workspace was not due');
      const took = since(begun);
      full.get(name)?.push(took);
      console.log(`full scoring after saving ${name}: ${seconds(took)}; ${await distribution()}`);
    }
  }
  for (const [name, scoring] of sets) {
    const checked = await requireScoring(db, ws, scoring);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const begun = performance.now();
      await previewScores(db, ws, checked, 60);
      times.push(since(begun));
    }
    console.log(`preview, ${name}: ${times.map((t) => seconds(t)).join(', ')}`);
  }

  // 4. Incremental rounds: MOVED organisations each get a session of 3 page views today (one
  // in three reads /pricing), then one round of the job's moved activity.
  const incremental: number[] = [];
  for (let round = 0; round < MOVED_ROUNDS; round++) {
    await sql`
      WITH picked AS (
        SELECT id FROM organisations WHERE workspace_id = ${ws}
        ORDER BY md5(id::text || ${round}) LIMIT ${MOVED}
      ), added AS (
        INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
          source, country, city, browser, device_type, pageviews, ended_notified)
        SELECT ${ws}, gen_random_uuid(), gen_random_uuid(), id, now() - interval '10 minutes',
          now() - interval '8 minutes', 'google.com', 'DE', 'Berlin', 'Chrome', 'desktop', 3, true
        FROM picked
        RETURNING workspace_id, id, started_at
      )
      INSERT INTO events (workspace_id, session_id, type, ts, url, attributed)
      SELECT a.workspace_id, a.id, 'pageview', a.started_at + make_interval(secs => v * 30),
        'https://bench.example' || (ARRAY['/', '/product',
          CASE WHEN hashtext(a.id::text) % 3 = 0 THEN '/pricing' ELSE '/features' END])[v], true
      FROM added a CROSS JOIN generate_series(1, 3) v`.execute(db);
    const begun = performance.now();
    const taken = await scoreMovedActivity(db);
    const took = since(begun);
    // More than MOVED only when a UTC day ended meanwhile (every organisation's window moved).
    if (taken !== MOVED) console.log(`incremental round ${round}: ${taken} organisations`);
    incremental.push(took);
  }
  console.log(
    `incremental rounds (${MOVED} organisations with a new session each): median ${ms(quantile(incremental, 0.5))} (${incremental.map((t) => ms(t)).join(', ')})`,
  );

  console.log('');
  const [, score, owner] = listed as [number, number, number];
  console.log(
    `list -score ${score.toFixed(0)} ms, owner=me ${owner.toFixed(0)} ms (target ≤ ${LIST_TARGET_MS} median)`,
  );
  for (const [name, times] of full) {
    console.log(
      `full scoring, ${name}: median ${seconds(quantile(times, 0.5))} (target ≤ ${FULL_TARGET_S} s)`,
    );
  }
  console.log(`incremental round: ${ms(quantile(incremental, 0.5))} median`);
} finally {
  await close();
  await database.done();
}
