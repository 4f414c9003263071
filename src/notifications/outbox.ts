import { type RawBuilder, sql } from 'kysely';

/**
 * The alerts' deliveries: which rules the outbox's events match, the segment filter and
 * the 12-hour rule are decided here, once, when the outbox fans them out
 * (outbox/events.ts); digests and test alerts are the rules' own.
 */

/** What a candidate may be: an outbox event's kind, or a rule trigger. */
export type AlertKind =
  | 'organisation.identified'
  | 'organisation.returned'
  | 'organisation.visited'
  | 'page.visited'
  | 'segment.entered'
  | 'digest.daily'
  | 'digest.weekly';

// At most one alert per organisation and rule in this time (contract §15).
const HOLD = '12 hours';

/** A candidate known in memory. */
export interface AlertCandidate {
  kind: AlertKind | string;
  workspaceId: string;
  organisationId?: string | null;
  sessionId?: string | null;
  segmentId?: string | null;
  url?: string | null;
  /** Only this rule (a digest, which is about one rule). */
  ruleId?: string | null;
  periodStart?: Date | null;
  periodEnd?: Date | null;
  /** Carried to the renderer as it is (a digest's figures). */
  data?: unknown;
}

/** Candidates from memory (a digest) as SQL for `enqueueNotifications`. */
export function alertValues(list: AlertCandidate[]): RawBuilder<unknown> {
  const column = <T>(pick: (c: AlertCandidate) => T) => list.map(pick);
  return sql`
    SELECT *, false AS test FROM unnest(
      ${column((c) => c.kind)}::text[], ${column((c) => c.workspaceId)}::uuid[],
      ${column((c) => c.organisationId ?? null)}::uuid[],
      ${column((c) => c.sessionId ?? null)}::uuid[], ${column((c) => c.segmentId ?? null)}::uuid[],
      ${column((c) => c.url ?? null)}::text[], ${column((c) => c.ruleId ?? null)}::uuid[],
      ${column((c) => c.periodStart?.toISOString() ?? null)}::timestamptz[],
      ${column((c) => c.periodEnd?.toISOString() ?? null)}::timestamptz[],
      ${column((c) => (c.data === undefined ? null : JSON.stringify(c.data)))}::jsonb[])
    AS v(kind, workspace_id, organisation_id, session_id, segment_id, url, rule_id,
         period_start, period_end, data)`;
}

/**
 * The INSERT (a CTE of the outbox's fan-out) of the alerts the outbox's `events` cause:
 * organisation.identified and .returned are new sessions of an organisation
 * (organisation.visited), page.visited and segment.entered are rule triggers as they are;
 * other kinds match no rule.
 */
export function notificationDeliveries(events: RawBuilder<unknown>): RawBuilder<unknown> {
  return enqueueNotifications(sql`
    SELECT e.kind, e.workspace_id, e.organisation_id, e.session_id, e.segment_id, e.url,
      NULL::uuid AS rule_id, NULL::timestamptz AS period_start, NULL::timestamptz AS period_end,
      NULL::jsonb AS data, false AS test
    FROM (${events}) e`);
}

/**
 * The INSERT (a statement, or a CTE of the caller's statement: it has no WITH of its own)
 * of a pending delivery for every enabled rule each candidate matches. `rows` is a query
 * of (kind, workspace_id, organisation_id, session_id, segment_id, url, rule_id,
 * period_start, period_end, data, test), as alertValues and alertRows make.
 * - filter.segment_uuid: the organisation is a member (segment.entered: it entered that one);
 * - filter.url_contains (page.visited): the URL contains it, ignoring case;
 * - only leads (customers, competitors and hidden organisations are never alerted about),
 *   owned by filter.owner when the rule has one; a to_owner rule without addresses only
 *   about organisations that have an owner;
 * - one alert per rule and organisation per 12 hours (digests and tests are not alerts
 *   about an organisation and always go out), one per rule and organisation per call.
 */
export function enqueueNotifications(rows: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    INSERT INTO notification_deliveries (workspace_id, id, rule_id, kind, test, organisation_id,
      session_id, segment_id, url, period_start, period_end, data)
    SELECT m.workspace_id, gen_random_uuid(), m.rule_id, m.trigger, m.test, m.organisation_id,
      m.session_id, m.segment_id, m.url, m.period_start, m.period_end, m.data
    FROM (
      SELECT DISTINCT ON (r.id, c.organisation_id) r.workspace_id, r.id AS rule_id, c.trigger,
        c.test, c.organisation_id, c.session_id, c.segment_id, c.url, c.period_start,
        c.period_end, c.data, c.trigger LIKE 'digest.%' OR c.test AS unheld
      FROM (
        SELECT c0.*, CASE c0.kind WHEN 'organisation.identified' THEN 'organisation.visited'
                                  WHEN 'organisation.returned' THEN 'organisation.visited'
                                  ELSE c0.kind END AS trigger
        FROM (${rows}) c0
      ) c
      JOIN notification_rules r ON r.workspace_id = c.workspace_id AND r.trigger = c.trigger
        AND (r.enabled OR c.test) AND (c.rule_id IS NULL OR r.id = c.rule_id)
      WHERE (c.organisation_id IS NOT NULL OR c.test OR c.trigger LIKE 'digest.%')
        -- Alerts are about leads (contract §17), of the rule's owner when it names one, and
        -- a to_owner rule without addresses has nobody to tell about an unowned one.
        AND (c.test OR c.trigger LIKE 'digest.%' OR EXISTS (SELECT 1 FROM organisations o
          WHERE o.workspace_id = c.workspace_id AND o.id = c.organisation_id
            AND o.status = 'lead' AND (r.owner_id IS NULL OR o.owner_id = r.owner_id)
            AND (NOT r.email_to_owner OR o.owner_id IS NOT NULL OR r.email_to <> '{}')))
        AND (c.trigger <> 'page.visited' OR r.url_contains IS NULL
             OR strpos(lower(c.url), lower(r.url_contains)) > 0)
        AND (r.segment_id IS NULL OR c.test OR c.trigger LIKE 'digest.%' OR CASE
          WHEN c.trigger = 'segment.entered' THEN c.segment_id = r.segment_id
          ELSE EXISTS (SELECT 1 FROM segment_members sm WHERE sm.workspace_id = r.workspace_id
                         AND sm.segment_id = r.segment_id AND sm.organisation_id = c.organisation_id)
        END)
      ORDER BY r.id, c.organisation_id, c.session_id NULLS LAST
    ) m
    -- CASE: the claim (which writes) is made only for the rows that are otherwise sent.
    WHERE CASE WHEN m.unheld THEN true
      ELSE notification_claim(m.workspace_id, m.rule_id, m.organisation_id, ${HOLD}::interval) END`;
}

/** A test delivery for the rule: through the outbox like any other, marked as a test. */
export function enqueueTest(workspaceId: string, ruleId: string, kind: string) {
  return sql<{ id: string }>`
    INSERT INTO notification_deliveries (workspace_id, id, rule_id, kind, test)
    VALUES (${workspaceId}, gen_random_uuid(), ${ruleId}, ${kind}, true)
    RETURNING id`;
}
