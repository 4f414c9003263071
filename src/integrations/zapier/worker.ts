import type { Kysely, Selectable, Updateable } from 'kysely';
import { presentContact } from '../../contacts/present.js';
import { findContact } from '../../contacts/store.js';
import type { Database, ZapierDeliveryTable } from '../../db/schema.js';
import { loadOrganisations } from '../../organisations/read.js';
import { type DueTable, startDueLoop } from '../../outbox/claim-due.js';
import type { SubscriberDeps } from '../../outbox/events.js';
import { postDelivery } from '../../outbox/post-delivery.js';
import { settle } from '../../outbox/retry.js';
import { presentSession } from '../../sessions/present.js';
import { loadSessions } from '../../sessions/query.js';

type Delivery = Selectable<ZapierDeliveryTable>;
export type ZapierDeps = Omit<SubscriberDeps, 'mailer'>;

// As the operator webhooks: a lease beyond the longest attempt, a few hooks of one
// workspace in flight at once so a hanging receiver holds up nobody else's.
const DUE: DueTable = {
  name: 'zapier',
  inFlight: 32,
  table: 'zapier_deliveries',
  tenant: 'workspace_id',
  perTenant: 4,
  leaseSeconds: 60,
};

/** The Zapier hooks' worker: the shared delivery loop over zapier_deliveries. */
export function startZapierWorker(deps: ZapierDeps, pollMs = 500): { stop(): Promise<void> } {
  return startDueLoop<Delivery>(
    deps.db,
    DUE,
    (delivery, signal) => attempt(deps, delivery, signal),
    deps.log,
    pollMs,
  );
}

/**
 * The body a hook receives (contract §18): the Organisation for new_lead, the Session with
 * its `organisation` for new_session, the Contact for contacts_revealed, each as the API
 * shows it; null when what it is about is gone (deleted, forgotten).
 */
export async function zapierBody(
  db: Kysely<Database>,
  delivery: Pick<
    Delivery,
    'workspace_id' | 'event' | 'organisation_id' | 'session_id' | 'contact_id'
  >,
): Promise<string | null> {
  const workspaceId = delivery.workspace_id;
  if (delivery.event === 'contacts_revealed') {
    const contact = delivery.contact_id
      ? await findContact(db, workspaceId, delivery.contact_id)
      : undefined;
    return contact ? JSON.stringify(presentContact(contact)) : null;
  }
  const [organisation] = delivery.organisation_id
    ? await loadOrganisations(db, workspaceId, [delivery.organisation_id])
    : [];
  if (delivery.event === 'new_lead') return organisation ? JSON.stringify(organisation) : null;
  // new_session
  const [record] = delivery.session_id
    ? await loadSessions(db, workspaceId, [delivery.session_id])
    : [];
  if (!record) return null;
  return JSON.stringify({ ...presentSession(record), organisation: organisation ?? null });
}

async function attempt(
  deps: ZapierDeps,
  delivery: Delivery,
  stopping: AbortSignal,
): Promise<'done' | 'unfinished'> {
  const { db, config } = deps;
  const finish = (values: Updateable<ZapierDeliveryTable>) =>
    db
      .updateTable('zapier_deliveries')
      .set(values)
      .where('workspace_id', '=', delivery.workspace_id)
      .where('id', '=', delivery.id)
      .execute();
  const hook = await db
    .selectFrom('zapier_hooks')
    .select('hook_url')
    .where('workspace_id', '=', delivery.workspace_id)
    .where('id', '=', delivery.hook_id)
    .executeTakeFirst();
  // Unsubscribed meanwhile: its deliveries went with it.
  if (!hook) return 'done';
  let body = delivery.body;
  if (body === null) {
    body = await zapierBody(db, delivery);
    if (body === null) {
      await finish({ status: 'failed', last_error: 'What it was about no longer exists.' });
      return 'done';
    }
    await finish({ body });
  }
  const outcome = await postDelivery(
    deps,
    new URL(hook.hook_url),
    body,
    {
      'user-agent': 'Footfall-Zapier/1',
      'x-footfall-event': delivery.event,
      'x-footfall-delivery': delivery.id,
    },
    stopping,
  );
  if (stopping.aborted && outcome.status === null) return 'unfinished';
  if (outcome.status === 410) {
    // Zapier's way of saying the Zap is gone: the hook goes, its deliveries with it.
    await db
      .deleteFrom('zapier_hooks')
      .where('workspace_id', '=', delivery.workspace_id)
      .where('id', '=', delivery.hook_id)
      .execute();
    return 'done';
  }
  await finish(settle(outcome, delivery.attempts, config.webhookRetrySeconds));
  return 'done';
}
