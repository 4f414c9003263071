import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import type { Resolver } from '../http/outbound/address-guard.js';
import type { Mailer } from '../mail/transport.js';

/**
 * The event outbox (docs/architecture.md, "The outbox and its subscribers"). A producer
 * records each domain event once, in the statement or transaction of the data that causes
 * it, and knows nothing of who wants it; subscribers (operator webhooks, alert rules, …)
 * register in src/subscribers.ts, and `fanOut` turns each batch of events into every
 * subscriber's deliveries in one statement, which each subscriber's delivery loop sends.
 */

/** What happened, as producers record it. */
export const DOMAIN_EVENTS = [
  'organisation.identified',
  'organisation.returned',
  'session.ended',
  'event.tracked',
  'segment.entered',
  'page.visited',
  'contact.identified',
  'organisation.changed',
] as const;
export type DomainEventKind = (typeof DOMAIN_EVENTS)[number];

/** One event known in memory (the collector's writer). Every event is about an organisation. */
export interface DomainEvent {
  kind: DomainEventKind;
  workspaceId: string;
  organisationId: string;
  sessionId?: string | null;
  eventId?: string | number | null;
  segmentId?: string | null;
  url?: string | null;
  contactId?: string | null;
}

/** What an event may carry besides its kind, workspace and organisation. */
type Carried = 'session_id' | 'event_id' | 'segment_id' | 'url' | 'contact_id';
const CARRIED_TYPE: Record<Carried, string> = {
  session_id: 'uuid',
  event_id: 'bigint',
  segment_id: 'uuid',
  url: 'text',
  contact_id: 'uuid',
};

/**
 * Events as SQL: a query of (kind, workspace_id, organisation_id, session_id, event_id,
 * segment_id, url, contact_id), the shape `recordEvents` takes and subscribers receive.
 */
export function eventValues(list: DomainEvent[]): RawBuilder<unknown> {
  const column = <T>(pick: (event: DomainEvent) => T) => list.map(pick);
  return sql`
    SELECT * FROM unnest(
      ${column((e) => e.kind)}::text[], ${column((e) => e.workspaceId)}::uuid[],
      ${column((e) => e.organisationId)}::uuid[], ${column((e) => e.sessionId ?? null)}::uuid[],
      ${column((e) => e.eventId ?? null)}::bigint[], ${column((e) => e.segmentId ?? null)}::uuid[],
      ${column((e) => e.url ?? null)}::text[], ${column((e) => e.contactId ?? null)}::uuid[])
    AS v(kind, workspace_id, organisation_id, session_id, event_id, segment_id, url, contact_id)`;
}

/**
 * Events of one kind from SQL: `rows` is a query of workspace_id, organisation_id and the
 * `carried` columns it names.
 */
export function eventRows(
  kind: DomainEventKind,
  rows: RawBuilder<unknown>,
  carried: Carried[] = [],
): RawBuilder<unknown> {
  const column = (name: Carried) =>
    carried.includes(name) ? sql`r.${sql.ref(name)}` : sql`NULL::${sql.raw(CARRIED_TYPE[name])}`;
  return sql`
    SELECT ${kind}::text AS kind, r.workspace_id, r.organisation_id,
      ${column('session_id')} AS session_id, ${column('event_id')} AS event_id,
      ${column('segment_id')} AS segment_id, ${column('url')} AS url,
      ${column('contact_id')} AS contact_id
    FROM (${rows}) r`;
}

/**
 * The INSERT (a statement, or a CTE of the caller's statement: it has no WITH of its own)
 * that records the events `rows` (as eventValues and eventRows make them). Events about no
 * organisation are nobody's business and are left out.
 */
export function recordEvents(rows: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    INSERT INTO outbox_events
      (kind, workspace_id, organisation_id, session_id, event_id, segment_id, url, contact_id)
    SELECT e.kind, e.workspace_id, e.organisation_id, e.session_id, e.event_id, e.segment_id,
           e.url, e.contact_id
    FROM (${rows}) e WHERE e.organisation_id IS NOT NULL`;
}

/**
 * What a workspace's settings ask producers to record: `event` also an event.tracked for
 * each tracked event (costly, so only when someone wants it), `session` the events of
 * organisations and sessions only; null: nothing, nobody listens.
 */
export type Interest = 'event' | 'session';

/** What a subscriber's delivery worker may need; each takes its part. */
export interface SubscriberDeps {
  db: Kysely<Database>;
  config: Config;
  encryptionKey: Buffer;
  /** Null when no SMTP server is configured. */
  mailer: Mailer | null;
  resolve?: Resolver;
  /** A failure of the worker's own (not of one delivery), with its error. */
  log: (message: string, error: unknown) => void;
}

/**
 * A subscriber: a folder with its own deliveries table (named `*_deliveries`, with
 * `workspace_id`, `session_id` and `status`, so purge, forget and retention find it; see
 * outbox/deliveries.ts) and one registration line in src/subscribers.ts.
 */
export interface Subscriber {
  name: string;
  /** What the workspace's settings for this subscriber ask producers to record. */
  interest(db: Kysely<Database>, workspaceId: string): Promise<Interest | null>;
  /**
   * The INSERT of its deliveries for `events` (a query of the event columns), run as a
   * CTE of the fan-out statement: no WITH of its own. It picks the kinds it wants. Several
   * INSERTs when its tables (or their conflict rules) differ.
   */
  deliveries(events: RawBuilder<unknown>): RawBuilder<unknown> | RawBuilder<unknown>[];
  /** Starts its delivery loop (outbox/delivery-loop.ts), polling every `everyMs`. */
  start(deps: SubscriberDeps, everyMs: number): { stop(): Promise<void> };
}

/** The strongest interest of any subscriber in the workspace (a cache is the caller's). */
export function interestOf(
  subscribers: readonly Subscriber[],
): (db: Kysely<Database>, workspaceId: string) => Promise<Interest | null> {
  return async (db, workspaceId) => {
    const interests = await Promise.all(subscribers.map((s) => s.interest(db, workspaceId)));
    if (interests.includes('event')) return 'event';
    return interests.includes('session') ? 'session' : null;
  };
}

/** Events fanned out per statement. */
export const FAN_OUT_BATCH = 1000;

/**
 * Fans out up to `batch` recorded events, oldest first, to every subscriber, in one
 * statement: the events are deleted and each subscriber's deliveries inserted together, so
 * an event is delivered to all or (on failure) stays for the next round. Rows are claimed
 * with SKIP LOCKED, so any number of servers can run it. Answers the events fanned out.
 *
 * The claim is an array, taken once. As `id IN (SELECT … LIMIT …)` PostgreSQL may make it a
 * semi-join that runs the claim again for every row of the table, each run taking its own
 * batch: it does when the table's statistics say it is empty, as they often do for a queue
 * that autovacuum analysed between two rounds. On the collector bench a round then took
 * 80–210 s and fanned out 22,000 events, not 1,000; its snapshot, held that long, kept
 * vacuum from every table the workers churn (docs/performance.md).
 */
export async function fanOut(
  db: Kysely<Database>,
  subscribers: readonly Subscriber[],
  batch = FAN_OUT_BATCH,
): Promise<number> {
  const due = sql`SELECT * FROM due`;
  const fanned = subscribers
    .flatMap((subscriber) => subscriber.deliveries(due))
    .map((insert, index) => sql`, ${sql.ref(`to_${index}`)} AS (${insert})`);
  const { rows } = await sql<{ events: number }>`
    WITH due AS (
      DELETE FROM outbox_events WHERE id = ANY(ARRAY(
        SELECT id FROM outbox_events ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED))
      RETURNING kind, workspace_id, organisation_id, session_id, event_id, segment_id, url,
        contact_id
    )${sql.join(fanned, sql``)}
    SELECT count(*)::int AS events FROM due`.execute(db);
  return rows[0]?.events ?? 0;
}
