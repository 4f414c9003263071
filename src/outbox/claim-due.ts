import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { startDeliveryLoop } from './delivery-loop.js';

/** Due rows looked at per claim, to share the free slots among tenants. */
const CANDIDATES = 500;

export interface DueTable {
  /** What the worker's log lines call it ("webhook", "zapier"). */
  name: string;
  /** Attempts in flight in one server. */
  inFlight: number;
  /** A `*_deliveries` table keyed by `id`, with status, attempts and next_attempt_at. */
  table: 'webhook_deliveries' | 'zapier_deliveries';
  /** The column whose values share the slots: at most `perTenant` of one in flight. */
  tenant: 'user_id' | 'workspace_id';
  perTenant: number;
  /** Seconds a claimed row is not claimed again (a worker that dies leaves it to a retry). */
  leaseSeconds: number;
}

/**
 * Claims up to `free` due deliveries of `due.table` (SKIP LOCKED, so any number of servers
 * can run it), at most `perTenant` in flight for any tenant counting `busy` (those this
 * server already has in flight), counts the attempt and leases them.
 */
export async function claimDue<T>(
  db: Kysely<Database>,
  due: DueTable,
  free: number,
  busy: ReadonlyMap<string, number>,
): Promise<T[]> {
  const tenants = [...busy.keys()];
  const inFlight = tenants.map((tenant) => busy.get(tenant) as number);
  const table = sql.table(due.table);
  const tenant = sql.ref(due.tenant);
  const { rows } = await sql<T>`
    WITH busy AS (
      SELECT * FROM unnest(${tenants}::uuid[], ${inFlight}::int[]) AS b(tenant, in_flight)
    ), candidates AS (
      SELECT d.id, d.tenant,
             row_number() OVER (PARTITION BY d.tenant ORDER BY d.next_attempt_at, d.id) AS rank
      FROM (SELECT id, ${tenant} AS tenant, next_attempt_at FROM ${table}
            WHERE status = 'pending' AND next_attempt_at <= now()
              AND ${tenant} NOT IN (SELECT tenant FROM busy WHERE in_flight >= ${due.perTenant})
            ORDER BY next_attempt_at LIMIT ${CANDIDATES}) d
    )
    UPDATE ${table} d
    SET attempts = d.attempts + 1,
        next_attempt_at = now() + make_interval(secs => ${due.leaseSeconds})
    FROM (SELECT id FROM ${table}
          WHERE id IN (SELECT c.id FROM candidates c LEFT JOIN busy b USING (tenant)
                       WHERE c.rank <= ${due.perTenant} - coalesce(b.in_flight, 0))
            AND status = 'pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at LIMIT ${free} FOR UPDATE SKIP LOCKED) due
    WHERE d.id = due.id
    RETURNING d.*`.execute(db);
  return rows;
}

/** Hands deliveries back, due now and their attempt not counted, for any server to take. */
export async function releaseDue(
  db: Kysely<Database>,
  table: DueTable['table'],
  ids: string[],
): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    UPDATE ${sql.table(table)} SET attempts = attempts - 1, next_attempt_at = now()
    WHERE id = ANY(${ids}::uuid[]) AND status = 'pending'`.execute(db);
}

/**
 * A subscriber's worker over a `DueTable`: the shared delivery loop, claiming and handing
 * back with the statements above, logging failures with the delivery's id.
 */
export function startDueLoop<T extends Record<string, unknown> & { id: string }>(
  db: Kysely<Database>,
  due: DueTable,
  attempt: (item: T, signal: AbortSignal) => Promise<'done' | 'unfinished'>,
  log: (message: string, error: unknown) => void,
  pollMs: number,
): { stop(): Promise<void> } {
  return startDeliveryLoop<T>(
    {
      inFlight: due.inFlight,
      perTenant: due.perTenant,
      tenantOf: (item) => String(item[due.tenant]),
      claim: (free, busy) => claimDue<T>(db, due, free, busy),
      attempt,
      release: (items) =>
        releaseDue(
          db,
          due.table,
          items.map((item) => item.id),
        ),
      failed: (error, item) =>
        log(
          item
            ? `${due.name} delivery ${item.id}: ${error.message}`
            : `${due.name} worker: ${error.message}`,
          error,
        ),
    },
    pollMs,
  );
}
