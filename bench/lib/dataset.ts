import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/schema.js';

type Call = (
  method: string,
  url: string,
  body?: unknown,
) => Promise<{ json: Record<string, unknown>; ms: number }>;

/**
 * The benches' large workspace: `sessions` sessions over the last 30 days (or `days`), 90%
 * attributed to `organisations` organisations, ≈3 page views each over ≈500 pages, 20
 * sources, 20 industries and 30 countries, all skewed as real traffic is. Made with SQL, so
 * a million sessions take about a minute; the same data on every run.
 */
export async function seedLargeWorkspace(
  db: Kysely<Database>,
  call: Call,
  options: SeedOptions,
): Promise<string> {
  const ws = (
    (await call('POST', '/v1/workspaces', { url: 'https://bench.example' })).json.data as {
      uuid: string;
    }
  ).uuid;
  await seedWorkspace(db, ws, options);
  return ws;
}

export interface SeedOptions {
  organisations: number;
  sessions: number;
  /**
   * The pages' URLs: `numbered` (default) `/page-1` … `/page-499`; `site` the same
   * popularity under a software company's paths (`/product`, `/pricing`, `/docs/…`,
   * `/blog/…`), with `/pricing`, `/contact` and `/demo` among them at decreasing
   * popularity (SITE_PAGES), for benches that look at which pages were read.
   */
  pages?: 'numbered' | 'site';
  /** The days the sessions spread over, ending today (default 30). */
  days?: number;
  /**
   * VACUUM ANALYZE and count the whole database when done (default true); a bench seeding
   * many workspaces does that once after the last.
   */
  finish?: boolean;
}

/** Milliseconds each step of seedWorkspace took. */
export interface SeedTimes {
  organisations: number;
  sessions: number;
  events: number;
}

/**
 * Paths of the most visited pages of a `site` data set by popularity rank (0 the most
 * visited; rank k about k^(-2/3) as often as rank 1); the ranks not named here are
 * `/blog/post-k` and `/docs/page-k`. Of the 3.1 million page views of 1,000,000 sessions,
 * `/pricing` gets about 22,000 (read by 8,000 of 10,000 organisations), `/contact` about
 * 7,800 (4,800) and `/demo` about 3,500 (2,650).
 */
export const SITE_PAGES: Record<number, string> = {
  0: '/',
  1: '/product',
  2: '/features',
  3: '/blog',
  4: '/docs',
  5: '/customers',
  6: '/integrations',
  7: '/about',
  8: '/security',
  9: '/changelog',
  10: '/careers',
  11: '/docs/getting-started',
  12: '/pricing',
  30: '/partners',
  60: '/contact',
  120: '/legal/privacy',
  200: '/demo',
};

/** The data of the large workspace, in a workspace that exists already. */
export async function seedWorkspace(
  db: Kysely<Database>,
  ws: string,
  {
    organisations: ORGANISATIONS,
    sessions: SESSIONS,
    pages = 'numbered',
    days = 30,
    finish = true,
  }: SeedOptions,
): Promise<SeedTimes> {
  // u(x): a uniform number in [0, 1) from an integer, so the data is the same on every run.
  const u = (x: ReturnType<typeof sql>) =>
    sql`((hashint4(${x}) & 2147483647) % 1000000 / 1000000.0)`;
  const seeding = performance.now();
  // Workspaces seeded into one database share their companies (company-1.com, …).
  await sql`
    INSERT INTO companies (domain, name, industry, size, address)
    SELECT 'company-' || i || '.com', 'Company ' || i,
      CASE WHEN i % 10 = 0 THEN '' ELSE (ARRAY['Software','Manufacturing','Retail','Finance',
        'Healthcare','Logistics','Education','Media','Telecommunications','Construction','Energy',
        'Consulting','Legal','Real Estate','Automotive','Insurance','Hospitality','Government',
        'Non-profit','Pharmaceuticals'])[1 + floor(20 * power(${u(sql`i`)}, 2))::int] END,
      '11-50',
      jsonb_build_object('country', (ARRAY['US','DE','GB','FR','NL','CA','AU','SE','CH','AT','ES',
        'IT','BE','DK','NO','FI','IE','PL','JP','IN','BR','SG','IL','NZ','PT','CZ','MX','ZA','KR',
        'AE'])[1 + floor(30 * power(${u(sql`i * 5`)}, 2.5))::int])
    FROM generate_series(1, ${ORGANISATIONS}) i
    ON CONFLICT (domain) DO NOTHING`.execute(db);
  await sql`
    INSERT INTO organisations (workspace_id, id, domain, created_at)
    SELECT ${ws}, gen_random_uuid(), 'company-' || i || '.com',
      now() - make_interval(days => ${days + 90})
    FROM generate_series(1, ${ORGANISATIONS}) i`.execute(db);
  const organised = performance.now();
  const paths = Object.entries(SITE_PAGES);
  const pageUrl =
    pages === 'site'
      ? sql`coalesce((${paths.map(([, path]) => path)}::text[])[array_position(${paths.map(([k]) => Number(k))}::int[], p.k)],
          CASE WHEN p.k % 2 = 0 THEN '/docs/page-' ELSE '/blog/post-' END || p.k)`
      : sql`'/' || CASE WHEN p.k = 0 THEN '' ELSE 'page-' || p.k END`;
  // Every tenth session unattributed; a few organisations visit often, most rarely. Each
  // session's page views are on its row as the writer keeps them (migration 0041), every 30
  // seconds from its start, which its end is no earlier than.
  await sql`
    INSERT INTO sessions (workspace_id, id, visitor_id, organisation_id, started_at, ended_at,
      source, country, city, browser, device_type, pageviews, pages, ended_notified)
    SELECT ${ws}, g.id, gen_random_uuid(),
      CASE WHEN i % 10 = 0 THEN NULL ELSE o.id END, t.at,
      t.at + make_interval(secs => greatest((hashint4(i * 3) & 2147483647) % 1800, g.views * 30)),
      (ARRAY['direct','google.com','linkedin.com','bing.com','newsletter','twitter.com',
        'facebook.com','duckduckgo.com','g2.com','capterra.com','reddit.com','youtube.com',
        'github.com','producthunt.com','ycombinator.com','partner-a.com','partner-b.com',
        'webinar','ads','yahoo.com'])[1 + floor(20 * power(${u(sql`i * 11`)}, 3))::int],
      'DE', 'Berlin', 'Chrome', 'desktop', g.views,
      ARRAY(SELECT 'https://bench.example' || ${pageUrl}
            FROM generate_series(1, g.views) v
            CROSS JOIN LATERAL (SELECT floor(500 * power(${u(sql`hashtext(g.id::text) # v`)}, 3))::int AS k) p
            ORDER BY v),
      true
    FROM generate_series(1, ${SESSIONS}) i
    CROSS JOIN LATERAL (SELECT gen_random_uuid() AS id,
      1 + floor(-ln(1 - ${u(sql`i * 13`)}) * 2.6)::int AS views) g
    CROSS JOIN LATERAL (SELECT date_trunc('day', now()) - make_interval(days => ${days - 1})
      + make_interval(secs => (hashint4(i * 7) & 2147483647) % (${days} * 86400)) AS at) t
    JOIN (SELECT id, row_number() OVER (ORDER BY id) AS n FROM organisations
          WHERE workspace_id = ${ws}) o
      ON o.n = 1 + floor(${ORGANISATIONS} * power(${u(sql`i`)}, 2))::int`.execute(db);
  const sessioned = performance.now();
  await sql`
    INSERT INTO events (workspace_id, session_id, type, ts, url, attributed)
    SELECT s.workspace_id, s.id, 'pageview', s.started_at + make_interval(secs => v * 30), p.url,
      s.organisation_id IS NOT NULL
    FROM sessions s CROSS JOIN LATERAL unnest(s.pages) WITH ORDINALITY AS p(url, v)
    WHERE s.workspace_id = ${ws}`.execute(db);
  const times = {
    organisations: organised - seeding,
    sessions: sessioned - organised,
    events: performance.now() - sessioned,
  };
  if (!finish) return times;
  await sql`VACUUM ANALYZE`.execute(db);
  const counted = await sql<{ sessions: number; events: number; rollup: number }>`
    SELECT (SELECT count(*) FROM sessions)::int AS sessions, (SELECT count(*) FROM events)::int AS events,
      (SELECT count(*) FROM stats_organisation_days)::int AS rollup`.execute(db);
  console.log(
    `data: ${ORGANISATIONS} organisations, ${counted.rows[0]?.sessions} sessions, ${counted.rows[0]?.events} page views, ${counted.rows[0]?.rollup} organisation-days (seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s)`,
  );
  return times;
}
