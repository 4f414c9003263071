import { type Kysely, sql } from 'kysely';
import { publicOrigin } from '../../config.js';
import type { CrmName, Database } from '../../db/schema.js';
import { escapeHtml } from '../../http/html.js';
import { decrypt } from '../../http/keys.js';
import { startDeliveryLoop } from '../../outbox/delivery-loop.js';
import type { SubscriberDeps } from '../../outbox/events.js';
import { CrmError } from './call.js';
import type { CrmClient } from './client.js';
import { type Row, syncRows } from './sync.js';
import { crmClient, VENDORS } from './vendors.js';

export type CrmDeps = SubscriberDeps;

/** One connection's claimed rows: the unit of work, one in flight per connection here. */
interface Batch {
  workspaceId: string;
  name: CrmName;
  rows: Row[];
}

// Well past a batch's calls at the vendor's rate: only a worker that died gives its up.
const LEASE_SECONDS = 300;
// A failure worth retrying (no answer, 5xx): again after these, then the rows fail.
const RETRY_SECONDS = [60, 300, 1800, 7200];
// Rows waiting for another worker's creation of the same company or contact.
const WAIT_SECONDS = 5;

/** The CRM sync's worker: the shared delivery loop, over batches of one connection's rows. */
export function startCrmWorker(deps: CrmDeps, pollMs = 500): { stop(): Promise<void> } {
  const { db } = deps;
  return startDeliveryLoop<Batch>(
    {
      inFlight: 4,
      perTenant: 1,
      tenantOf: (batch) => `${batch.workspaceId}/${batch.name}`,
      claim: async (free, busy) => {
        const batches: Batch[] = [];
        const taken = new Set(busy.keys());
        for (let i = 0; i < free; i++) {
          const batch = await claimBatch(db, [...taken]);
          if (!batch) break;
          taken.add(`${batch.workspaceId}/${batch.name}`);
          batches.push(batch);
        }
        return batches;
      },
      attempt: (batch, signal) => attempt(deps, batch, signal),
      release: async (batches) => {
        for (const batch of batches) await reschedule(db, batch.rows, new Date());
      },
      failed: (error, batch) =>
        deps.log(
          batch
            ? `crm sync ${batch.name} of workspace ${batch.workspaceId}: ${error.message}`
            : `crm sync worker: ${error.message}`,
          error,
        ),
    },
    pollMs,
  );
}

/**
 * Claims up to a batch of due rows of one connection that may be sent (enabled, not failed,
 * not asked to wait, workspace not deleted), skipping the connections in `busy`.
 */
async function claimBatch(db: Kysely<Database>, busy: string[]): Promise<Batch | null> {
  const { rows: picked } = await sql<{ workspace_id: string; name: CrmName }>`
    SELECT d.workspace_id, d.integration AS name FROM crm_deliveries d
    JOIN crm_connections c ON c.workspace_id = d.workspace_id AND c.name = d.integration
    JOIN workspaces w ON w.id = d.workspace_id
    WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND c.enabled
      AND c.failed_at IS NULL AND (c.paused_until IS NULL OR c.paused_until <= now())
      AND w.deleted_at IS NULL
      AND d.workspace_id::text || '/' || d.integration <> ALL(${busy}::text[])
    ORDER BY d.next_attempt_at LIMIT 1`.execute(db);
  const connection = picked[0];
  if (!connection) return null;
  const { rows } = await sql<Row>`
    UPDATE crm_deliveries d
    SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
    FROM (SELECT id FROM crm_deliveries
          WHERE workspace_id = ${connection.workspace_id} AND integration = ${connection.name}
            AND status = 'pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at, id LIMIT ${VENDORS[connection.name].batch}
          FOR UPDATE SKIP LOCKED) due
    WHERE d.id = due.id
    RETURNING d.id, d.workspace_id, d.integration, d.kind, d.organisation_id, d.session_id,
      d.contact_id, d.changes, d.attempts`.execute(db);
  if (rows.length === 0) return null;
  return { workspaceId: connection.workspace_id, name: connection.name, rows };
}

async function attempt(
  deps: CrmDeps,
  batch: Batch,
  signal: AbortSignal,
): Promise<'done' | 'unfinished'> {
  const { db } = deps;
  const { workspaceId, name, rows } = batch;
  const connection = await db
    .selectFrom('crm_connections')
    .select(['token_encrypted', 'setup'])
    .where('workspace_id', '=', workspaceId)
    .where('name', '=', name)
    .executeTakeFirst();
  // Disconnected meanwhile: its rows went with it.
  if (!connection) return 'done';
  const token = decrypt(deps.encryptionKey, connection.token_encrypted);
  const client = crmClient(deps, workspaceId, name, token, signal);
  try {
    const setup = await client.setUp(connection.setup);
    if (JSON.stringify(setup) !== JSON.stringify(connection.setup)) {
      await db
        .updateTable('crm_connections')
        .set({ setup: JSON.stringify(setup) })
        .where('workspace_id', '=', workspaceId)
        .where('name', '=', name)
        .execute();
    }
    await send(deps, client, batch, rows);
    return 'done';
  } catch (error) {
    if (signal.aborted) return 'unfinished';
    // The connection (or the workspace) went while the batch was under way.
    if ((error as { code?: string }).code === '23503') return 'done';
    throw error;
  }
}

/**
 * Sends rows and settles them by the outcome. A content the CRM refuses fails only its own
 * row: a batch it refuses is sent again one row at a time.
 */
async function send(deps: CrmDeps, client: CrmClient, batch: Batch, rows: Row[]): Promise<void> {
  const { db, config } = deps;
  const { workspaceId, name } = batch;
  try {
    const synced = await syncRows(
      { db, workspaceId, name, client, publicOrigin: publicOrigin(config) },
      rows,
    );
    await finish(db, synced.done);
    await reschedule(db, synced.later, new Date(Date.now() + WAIT_SECONDS * 1000));
    await sql`
      UPDATE crm_connections SET last_synced_at = now(), last_error = NULL,
        backfill_finished_at = CASE WHEN backfill_started_at IS NOT NULL
          AND backfill_finished_at IS NULL AND NOT EXISTS (SELECT 1 FROM crm_deliveries d
            WHERE d.workspace_id = ${workspaceId} AND d.integration = ${name}
              AND d.status = 'pending' AND d.backfill)
          THEN now() ELSE backfill_finished_at END
      WHERE workspace_id = ${workspaceId} AND name = ${name}`.execute(db);
  } catch (error) {
    if (!(error instanceof CrmError)) throw error;
    switch (error.problem) {
      case 'stopped':
        // Back to the queue, uncounted; they wait while the connection does not send (and
        // went with it when it was disconnected or its workspace deleted).
        await reschedule(db, rows, new Date());
        return;
      case 'refused':
        await reschedule(db, rows, new Date());
        await refused(deps, batch, error.message);
        return;
      case 'throttled': {
        const until = new Date(Date.now() + error.retryAfterMs);
        await noteError(db, batch, error.message, { paused_until: until });
        await reschedule(db, rows, until);
        return;
      }
      case 'unavailable':
        await noteError(db, batch, error.message);
        await retryOrFail(db, rows, error);
        return;
      case 'rejected':
        if (rows.length > 1) {
          for (const row of rows) await send(deps, client, batch, [row]);
          return;
        }
        await noteError(db, batch, error.message);
        await failRows(db, rows, error);
        return;
    }
  }
}

/**
 * Sent rows go; a company row changed while it was sent stays for another round (the
 * change bumped `changes` after the worker read the organisation).
 */
async function finish(db: Kysely<Database>, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    WITH sent AS (
      SELECT * FROM unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.changes)}::int[])
        AS s(id, changes)
    ), gone AS (
      DELETE FROM crm_deliveries d USING sent
      WHERE d.id = sent.id AND d.changes = sent.changes RETURNING d.id
    )
    UPDATE crm_deliveries d SET attempts = 0, next_attempt_at = now()
    FROM sent WHERE d.id = sent.id AND d.changes <> sent.changes`.execute(db);
}

/** Rows handed back, due again at `at`, this attempt not counted (it was not their fault). */
async function reschedule(db: Kysely<Database>, rows: Row[], at: Date): Promise<void> {
  if (rows.length === 0) return;
  await db
    .updateTable('crm_deliveries')
    .set((eb) => ({ next_attempt_at: at, attempts: eb('attempts', '-', 1) }))
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .where('status', '=', 'pending')
    .execute();
}

async function retryOrFail(db: Kysely<Database>, rows: Row[], error: CrmError): Promise<void> {
  for (const row of rows) {
    const delay = RETRY_SECONDS[row.attempts - 1];
    if (delay === undefined) {
      await failRows(db, [row], error);
    } else {
      await db
        .updateTable('crm_deliveries')
        .set({
          next_attempt_at: new Date(Date.now() + delay * 1000),
          last_error: error.message,
          last_status_code: error.status,
        })
        .where('id', '=', row.id)
        .execute();
    }
  }
}

async function failRows(db: Kysely<Database>, rows: Row[], error: CrmError): Promise<void> {
  await db
    .updateTable('crm_deliveries')
    .set({ status: 'failed', last_error: error.message, last_status_code: error.status })
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
}

async function noteError(
  db: Kysely<Database>,
  batch: Batch,
  message: string,
  more: { paused_until?: Date } = {},
): Promise<void> {
  await db
    .updateTable('crm_connections')
    .set({ last_error: message, ...more })
    .where('workspace_id', '=', batch.workspaceId)
    .where('name', '=', batch.name)
    .execute();
}

/**
 * The CRM refused the token: the connection is failed (nothing is sent until an admin
 * connects again; the rows wait) and, the first time, each admin of the workspace gets an
 * e-mail saying so.
 */
async function refused(deps: CrmDeps, batch: Batch, message: string): Promise<void> {
  const { db } = deps;
  const failed = await db
    .updateTable('crm_connections')
    .set({ failed_at: new Date(), last_error: message })
    .where('workspace_id', '=', batch.workspaceId)
    .where('name', '=', batch.name)
    .where('failed_at', 'is', null)
    .returning('name')
    .executeTakeFirst();
  if (!failed || !deps.mailer) return;
  const admins = await db
    .selectFrom('workspace_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['u.email', 'w.name as workspace'])
    .where('m.workspace_id', '=', batch.workspaceId)
    .where('m.role', 'in', ['owner', 'admin'])
    .execute();
  const label = VENDORS[batch.name].label;
  const link = `${publicOrigin(deps.config)}/w/${batch.workspaceId}/settings#integrations`;
  for (const admin of admins) {
    const subject = `${label} sync stopped for ${admin.workspace}`;
    const text = `${message}\n\nNothing is sent to ${label} until an admin connects again with a working token; what is waiting is kept and sent then.\n\nIntegrations: ${link}`;
    const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2937">
<p>${escapeHtml(message)}</p>
<p>Nothing is sent to ${label} until an admin connects again with a working token; what is waiting is kept and sent then.</p>
<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:6px">Open Integrations</a></p>
</body></html>`;
    await deps.mailer
      .send({ to: admin.email, subject, text, html })
      .catch((error) =>
        deps.log(`crm sync: the e-mail to an admin failed: ${error.message}`, error),
      );
  }
}
