import { type Kysely, sql, type Transaction } from 'kysely';
import { isDatabaseUnreachable, sqlState } from '../db/failures.js';
import { withinSession } from '../db/partitions.js';
import type { Database } from '../db/schema.js';
import { profileCountry, profileJoins, profileName } from '../enrich/profile-sql.js';
import { dashboardLink } from '../http/links.js';
import { type DigestKind, type DigestPeriod, latestPeriod } from './digest-period.js';
import { alertValues, enqueueNotifications } from './outbox.js';

/** Organisations listed in a digest; the rest are counted ("and N more"). */
export const DIGEST_LIMIT = 50;
// Rows of rules' past periods kept: only the latest period is ever looked at again.
const KEEP_PERIODS = '60 days';

export interface DigestOrganisation {
  uuid: string;
  name: string;
  domain: string;
  industry: string;
  /** The directory's country, as the API's `address.country` shows it. */
  country: string;
  sessions: number;
  pageviews: number;
  /** The end of its last session that started in the period. */
  last_seen: string;
  /** Its lead score (contract §17). */
  score: number;
  /** What it read in the period: its most viewed pages, up to PAGES_LISTED. */
  pages: string[];
  link: string;
}

/** Pages listed per organisation in a digest. */
export const PAGES_LISTED = 5;

/** What a digest delivery carries (`data`); the webhook channel sends it as it is. */
export interface DigestData {
  digest: 'daily' | 'weekly';
  timezone: string;
  period: { first_day: string; last_day: string; start: string; end: string };
  totals: { organisations: number; sessions: number; pageviews: number };
  /** Only the organisations this member owns ("My accounts"), or null. */
  owner: { uuid: string; name: string } | null;
  /** The first DIGEST_LIMIT: most sessions first (highest score first with an owner), then by name. */
  organisations: DigestOrganisation[];
  /** Organisations that visited but are not listed. */
  more: number;
  /** The workspace's organisations in the dashboard. */
  link: string;
}

export interface DigestRule {
  workspace_id: string;
  id: string;
  trigger: DigestKind;
  timezone: string;
  segment_id: string | null;
  owner_id: string | null;
}

/**
 * The organisations that visited in the period exactly as the sessions list would show
 * them (contract §6): sessions attributed to an organisation whose `started_at` is within
 * [start, end), of members of the rule's segment when it has one; with their sessions,
 * page views and last seen in the period.
 */
export async function digestOf(
  db: Kysely<Database>,
  rule: DigestRule,
  period: Pick<DigestPeriod, 'firstDay' | 'lastDay' | 'start' | 'end'>,
  base: string,
): Promise<DigestData> {
  const segment = rule.segment_id
    ? sql`AND EXISTS (SELECT 1 FROM segment_members m WHERE m.workspace_id = s.workspace_id
        AND m.segment_id = ${rule.segment_id} AND m.organisation_id = s.organisation_id)`
    : sql``;
  // My accounts: what the owner looks at first is the best lead.
  const order = rule.owner_id
    ? sql`score DESC, sessions DESC, name, organisation_id`
    : sql`sessions DESC, name, organisation_id`;
  const { rows } = await sql<{
    id: string;
    name: string;
    domain: string;
    industry: string;
    country: string;
    sessions: number;
    pageviews: number;
    last_seen: Date;
    score: number;
    pages: string[] | null;
    organisations: number;
    all_sessions: number;
    all_pageviews: number;
  }>`
    WITH visited AS (
      SELECT s.organisation_id, count(*)::int AS sessions,
        coalesce(sum(s.pageviews), 0)::int AS pageviews, max(s.ended_at) AS last_seen
      FROM sessions s
      WHERE s.workspace_id = ${rule.workspace_id} AND s.organisation_id IS NOT NULL
        AND s.started_at >= ${period.start.toISOString()}::timestamptz
        AND s.started_at < ${period.end.toISOString()}::timestamptz ${segment}
      GROUP BY s.organisation_id
    ), named AS (
      -- The name as the API shows it (organisations/read.ts nameOf).
      -- Leads only (contract §17), the owner's when the rule names one.
      SELECT v.*, o.domain, o.score, ${profileName} AS name,
        coalesce(c.industry, '') AS industry, ${profileCountry} AS country
      FROM visited v
      JOIN organisations o ON o.workspace_id = ${rule.workspace_id} AND o.id = v.organisation_id
        AND o.status = 'lead' ${rule.owner_id ? sql`AND o.owner_id = ${rule.owner_id}` : sql``}
      ${profileJoins}
    ), totals AS (
      SELECT count(*)::int AS organisations, coalesce(sum(sessions), 0)::int AS all_sessions,
        coalesce(sum(pageviews), 0)::int AS all_pageviews
      FROM named
    )
    SELECT l.organisation_id AS id, l.name, l.domain, l.industry, l.country, l.sessions,
      l.pageviews, l.last_seen, l.score, p.pages, t.*
    FROM totals t LEFT JOIN LATERAL (
      SELECT * FROM named ORDER BY ${order} LIMIT ${DIGEST_LIMIT}
    ) l ON true
    LEFT JOIN LATERAL (
      SELECT array_agg(url ORDER BY views DESC, url) AS pages FROM (
        SELECT e.url, count(*) AS views FROM sessions s
        JOIN events e ON e.workspace_id = s.workspace_id AND e.session_id = s.id
          AND ${withinSession}
        WHERE s.workspace_id = ${rule.workspace_id} AND s.organisation_id = l.organisation_id
          AND s.started_at >= ${period.start.toISOString()}::timestamptz
          AND s.started_at < ${period.end.toISOString()}::timestamptz AND e.type = 'pageview'
        GROUP BY e.url ORDER BY views DESC, e.url LIMIT ${PAGES_LISTED}) read
    ) p ON true
    ORDER BY ${rule.owner_id ? sql`l.score DESC, ` : sql``}l.sessions DESC, l.name, l.organisation_id`.execute(
    db,
  );
  const totals = rows[0] ?? { organisations: 0, all_sessions: 0, all_pageviews: 0 };
  const listed = rows.filter((row) => row.id !== null);
  return {
    digest: rule.trigger === 'digest.weekly' ? 'weekly' : 'daily',
    timezone: rule.timezone,
    period: {
      first_day: period.firstDay,
      last_day: period.lastDay,
      start: period.start.toISOString(),
      end: period.end.toISOString(),
    },
    totals: {
      organisations: totals.organisations,
      sessions: totals.all_sessions,
      pageviews: totals.all_pageviews,
    },
    organisations: listed.map((row) => ({
      uuid: row.id,
      name: row.name,
      domain: row.domain,
      industry: row.industry,
      country: row.country,
      sessions: row.sessions,
      pageviews: row.pageviews,
      last_seen: row.last_seen.toISOString(),
      score: row.score,
      pages: row.pages ?? [],
      link: dashboardLink(base, rule.workspace_id, row.id),
    })),
    owner: rule.owner_id ? await ownerOf(db, rule.owner_id) : null,
    more: totals.organisations - listed.length,
    link: dashboardLink(base, rule.workspace_id),
  };
}

async function ownerOf(db: Kysely<Database>, userId: string) {
  const user = await db
    .selectFrom('users')
    .select(['id', 'name'])
    .where('id', '=', userId)
    .executeTakeFirst();
  return { uuid: userId, name: user?.name ?? '' };
}

export interface DigestJobDeps {
  db: Kysely<Database>;
  /** PUBLIC_URL (or the local fallback): the base of the digest's links. */
  base: string;
}

/**
 * One round of the digest job, run every minute by every server. For each enabled digest
 * rule, the latest period whose 07:00 (local) has passed since the rule was created is sent
 * unless it was already: the period's row in digest_periods is inserted ON CONFLICT DO
 * NOTHING in the transaction that enqueues the delivery, so a second server waits on the
 * first's row and then does nothing. Answers the deliveries enqueued. `now` is the clock.
 */
export async function sendDueDigests(deps: DigestJobDeps, now = new Date()): Promise<number> {
  const { db } = deps;
  const rules = await db
    .selectFrom('notification_rules as r')
    .innerJoin('workspaces as w', 'w.id', 'r.workspace_id')
    .select([
      'r.workspace_id',
      'r.id',
      'r.trigger',
      'r.timezone',
      'r.segment_id',
      'r.owner_id',
      'r.created_at',
    ])
    .where('r.enabled', '=', true)
    .where('r.trigger', 'in', ['digest.daily', 'digest.weekly'])
    .where('w.deleted_at', 'is', null)
    .execute();
  const due = rules.flatMap((rule) => {
    const period = periodOf(rule as DigestRule, now);
    // A rule's first digest is at the first 07:00 after it was made, not at once.
    return period && period.sendAt >= rule.created_at ? [{ rule: rule as DigestRule, period }] : [];
  });
  if (due.length === 0) return 0;
  // Most rounds find every due period sent: one statement says so.
  const { rows: sent } = await sql<{ rule_id: string; trigger: string; period_start: Date }>`
    SELECT d.rule_id, d.trigger, d.period_start FROM digest_periods d
    JOIN unnest(${due.map((d) => d.rule.workspace_id)}::uuid[],
                ${due.map((d) => d.rule.id)}::uuid[]) AS k(workspace_id, rule_id)
      ON d.workspace_id = k.workspace_id AND d.rule_id = k.rule_id`.execute(db);
  const done = new Set(sent.map((row) => key(row.rule_id, row.trigger, row.period_start)));
  let enqueued = 0;
  const failed: string[] = [];
  for (const { rule, period } of due) {
    if (done.has(key(rule.id, rule.trigger, period.start))) continue;
    try {
      enqueued += await db.transaction().execute((trx) => sendDigest(trx, deps.base, rule, period));
    } catch (error) {
      // Another server holds the period's row for over a second: it is sending the digest
      // (or, if it fails, this server claims it next minute).
      if (sqlState(error) === LOCK_NOT_AVAILABLE) continue;
      // Not the rule's failure: the round ends, and the outage is noted once.
      if (isDatabaseUnreachable(error)) throw error;
      // One rule's failure costs only its digest; it is tried again next minute.
      failed.push(`rule ${rule.id} (${sqlState(error) ?? (error as Error).message})`);
    }
  }
  if (failed.length > 0) throw new Error(`digests not sent, tried again: ${failed.join(', ')}`);
  return enqueued;
}

const LOCK_NOT_AVAILABLE = '55P03';

const key = (ruleId: string, trigger: string, start: Date) =>
  `${ruleId} ${trigger} ${start.toISOString()}`;

function periodOf(rule: DigestRule, now: Date): DigestPeriod | null {
  try {
    return latestPeriod(rule.trigger, rule.timezone, now);
  } catch {
    return null; // a zone this Node no longer knows: nothing to send until it is fixed
  }
}

/** Claims the period for the rule and enqueues its digest, in the caller's transaction. */
async function sendDigest(
  trx: Transaction<Database>,
  base: string,
  rule: DigestRule,
  period: DigestPeriod,
): Promise<number> {
  // A second server waits for the first's row at most this long (then skips; see above),
  // not for as long as the first takes to compute a large digest.
  await sql`SET LOCAL lock_timeout = '1s'`.execute(trx);
  const claimed = await sql<{ rule_id: string }>`
    INSERT INTO digest_periods (workspace_id, rule_id, trigger, period_start, period_end,
      organisations)
    VALUES (${rule.workspace_id}, ${rule.id}, ${rule.trigger},
      ${period.start.toISOString()}::timestamptz, ${period.end.toISOString()}::timestamptz, 0)
    ON CONFLICT DO NOTHING RETURNING rule_id`.execute(trx);
  if (claimed.rows.length === 0) return 0; // another server has sent it
  await sql`SET LOCAL lock_timeout = 0`.execute(trx);
  await sql`
    DELETE FROM digest_periods WHERE workspace_id = ${rule.workspace_id}
      AND rule_id = ${rule.id}
      AND period_start < ${period.start.toISOString()}::timestamptz - ${KEEP_PERIODS}::interval`.execute(
    trx,
  );
  // A rule whose segment was deleted matches nothing (as alerts do): no digest.
  if (rule.segment_id) {
    const segment = await trx
      .selectFrom('segments')
      .select('id')
      .where('workspace_id', '=', rule.workspace_id)
      .where('id', '=', rule.segment_id)
      .executeTakeFirst();
    if (!segment) return 0;
  }
  const data = await digestOf(trx, rule, period, base);
  const { rows } = await sql<{ id: string }>`
    WITH enqueued AS (${enqueueNotifications(
      alertValues([
        {
          kind: rule.trigger,
          workspaceId: rule.workspace_id,
          ruleId: rule.id,
          segmentId: rule.segment_id,
          periodStart: period.start,
          periodEnd: period.end,
          data,
        },
      ]),
    )} RETURNING id)
    UPDATE digest_periods SET delivery_id = (SELECT id FROM enqueued LIMIT 1),
      organisations = ${data.totals.organisations}
    WHERE workspace_id = ${rule.workspace_id} AND rule_id = ${rule.id}
      AND trigger = ${rule.trigger} AND period_start = ${period.start.toISOString()}::timestamptz
    RETURNING delivery_id AS id`.execute(trx);
  return rows[0]?.id ? 1 : 0;
}
