import { type Kysely, sql } from 'kysely';
import { recordContacts } from '../contacts/store.js';
import { PREPARED } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { Transaction } from '../db/transaction.js';
import { emailSightings, type Identities, recordIdentifications } from '../identify/identity.js';
import { ensureOrganisations, organisationKey } from '../organisations/store.js';
import { type DomainEvent, eventValues, type Interest, recordEvents } from '../outbox/events.js';
import { deferRollups } from '../stats/rollups.js';
import type { IngestMetrics } from './metrics.js';
import { type IngestRecord, trackedEvent } from './record.js';
import { goneScripts, lockScripts, type ScriptGone } from './scripts.js';
import type { VisitEvent } from './sessionizer.js';
import { storeVisits } from './store.js';

/** A record handed to the group write, and what the write made of it. */
export interface WriteRequest {
  context: IngestRecord;
  /** Set by the writer when the record's script was found unlinked or deleted: nothing stored. */
  refused?: ScriptGone;
}

/** One group of requests on its way into the database; each phase adds what it learnt. */
interface GroupWrite {
  requests: WriteRequest[];
  /** The workspaces of the group whose subscribers want events, with what they want. */
  interested: Map<string, Interest>;
  /** Organisation ids by organisationKey(workspace, domain). */
  organisations: Map<string, string>;
  /** The domain events the group's data causes, for the outbox. */
  events: DomainEvent[];
  /** Done once the group has committed (caches that must not hold what rolled back). */
  afterCommit: (() => void)[];
}

/** A named step of the group write; the phases run in order, in one transaction. */
interface Phase {
  name: string;
  run(group: GroupWrite, tx: Transaction<Database>): Promise<void>;
}

export interface WriterDeps {
  db: Kysely<Database>;
  idleMs: number;
  identities: Identities;
  /** What the workspace's subscribers want recorded, null: nothing (cached by the caller). */
  interest: (workspaceId: string) => Promise<Interest | null>;
  metrics: IngestMetrics;
}

const eventKey = (event: { workspaceId: string; id: string }) => `${event.workspaceId} ${event.id}`;

const organisationOf = (group: GroupWrite, { script, organisation }: IngestRecord) =>
  organisation
    ? (group.organisations.get(organisationKey(script.workspaceId, organisation.domain)) ?? null)
    : null;

/**
 * The group write, in order. Locks are taken in one global order, so concurrent writers
 * (in this or another process) cannot deadlock: the requests' tracking scripts (by id,
 * shared), the organisations they create (by workspace and domain: only writers that make
 * the same one wait for each other), then the visitors (by key), then rows each phase
 * writes in a sorted order of its own, and last, with the commit, the stats rollups' rows
 * (src/stats/rollups.ts, in key order) and the month's count of each workspace that gained
 * an organisation (by workspace id; organisations/store.ts).
 */
function phases(deps: WriterDeps): Phase[] {
  return [
    {
      // Before any lock: a lookup that may wait for a connection of its own.
      name: 'recipients',
      async run(group) {
        const workspaces = [...new Set(group.requests.map((r) => r.context.script.workspaceId))];
        const interests = await Promise.all(workspaces.map(deps.interest));
        workspaces.forEach((workspace, index) => {
          const interest = interests[index];
          if (interest) group.interested.set(workspace, interest);
        });
      },
    },
    {
      // Every request's script held with the first locks below; a deleted one refused.
      name: 'scripts',
      async run(group, tx) {
        tx.lockFirst(lockScripts(group.requests.map((r) => r.context.script.id)));
      },
    },
    {
      // The tracker's event ids (contract §19): an event already stored, because its request
      // was sent again, is left out here, in the transaction that stores the rest.
      name: 'event_ids',
      async run(group, tx) {
        const ids = group.requests.flatMap(({ context }) =>
          context.events.flatMap((event) =>
            event.id ? [{ workspaceId: context.script.workspaceId, id: event.id }] : [],
          ),
        );
        if (ids.length === 0) return;
        // Sorted: writers that share ids take their locks in one order.
        ids.sort((a, b) => eventKey(a).localeCompare(eventKey(b)));
        const { rows } = await sql<{ workspace_id: string; event_id: string }>`${PREPARED}
          INSERT INTO ingest_event_ids (workspace_id, event_id)
          SELECT * FROM unnest(${ids.map((i) => i.workspaceId)}::uuid[], ${ids.map((i) => i.id)}::uuid[])
          ON CONFLICT DO NOTHING
          RETURNING workspace_id, event_id`.execute(await tx.db());
        const fresh = new Set(
          rows.map((row) => eventKey({ workspaceId: row.workspace_id, id: row.event_id })),
        );
        let duplicates = 0;
        for (const { context } of group.requests) {
          const kept = context.events.filter(
            // Taken from the set, so an id twice in one group is stored once too.
            (event) =>
              !event.id ||
              fresh.delete(eventKey({ workspaceId: context.script.workspaceId, id: event.id })),
          );
          duplicates += context.events.length - kept.length;
          context.events = kept;
        }
        if (duplicates > 0) group.afterCommit.push(() => deps.metrics.duplicates.inc(duplicates));
      },
    },
    {
      // The identity layer's database half (identify/identity.ts): visitors named before,
      // in one query for the batch; their organisation wins over what the collector found.
      name: 'known_visitors',
      async run(group, tx) {
        const known = await deps.identities.knownMany(
          group.requests.map(({ context }) => ({
            workspaceId: context.script.workspaceId,
            visitorId: context.visitorId,
          })),
          await tx.db(),
        );
        for (const { context } of group.requests) {
          const hint = known.get(`${context.script.workspaceId} ${context.visitorId}`);
          if (hint) context.organisation = { ...hint, source: 'identity' };
        }
      },
    },
    {
      name: 'organisations',
      async run(group, tx) {
        const found = await ensureOrganisations(
          tx,
          group.requests.flatMap(({ context }) =>
            context.organisation
              ? [{ workspaceId: context.script.workspaceId, ...context.organisation }]
              : [],
          ),
        );
        group.organisations = found.ids;
        for (const { workspaceId, id } of found.created) {
          group.events.push({
            kind: 'organisation.identified',
            workspaceId,
            organisationId: id,
          });
        }
        group.afterCommit.push(found.remember);
      },
    },
    {
      name: 'sessionize_and_store',
      async run(group, tx) {
        const items: VisitEvent[] = group.requests.flatMap(({ context }) => {
          const { script, agent } = context;
          const visit = {
            workspaceId: script.workspaceId,
            visitorId: context.visitorId,
            browser: agent.browser,
            deviceType: agent.deviceType,
            location: context.location,
            organisationId: organisationOf(group, context),
            siteDomains: script.siteDomains,
          };
          return context.events.map((event) => ({ visit, event: trackedEvent(event) }));
        });
        // A group of requests whose events were all dropped only checks their scripts.
        if (items.length === 0) return;
        group.events.push(...(await storeVisits(tx, items, deps.idleMs, group.interested)));
        group.afterCommit.push(() => deps.metrics.stored.inc(items.length));
      },
    },
    {
      name: 'identities',
      async run(group, tx) {
        const identified = group.requests.flatMap(({ context }) => {
          const { script, visitorId, organisation } = context;
          const organisationId = organisation?.email ? organisationOf(group, context) : null;
          return organisation?.email && organisationId
            ? [
                {
                  workspaceId: script.workspaceId,
                  visitorId,
                  organisationId,
                  email: organisation.email,
                  organisation,
                },
              ]
            : [];
        });
        await recordIdentifications(await tx.db(), identified);
        group.afterCommit.push(() => {
          for (const { workspaceId, visitorId, organisation } of identified) {
            deps.identities.remember(workspaceId, visitorId, organisation);
          }
        });
      },
    },
    {
      name: 'contacts',
      async run(group, tx) {
        const sightings = group.requests.flatMap(({ context }) =>
          emailSightings(context.events).map((sighting) => ({
            ...sighting,
            workspaceId: context.script.workspaceId,
            visitorId: context.visitorId,
            organisationId: organisationOf(group, context),
          })),
        );
        const created = await recordContacts(await tx.db(), sightings);
        for (const { workspaceId, contactId, organisationId } of created) {
          // A contact of no organisation (a free-mail address) is nobody's lead.
          if (organisationId) {
            group.events.push({
              kind: 'contact.identified',
              workspaceId,
              organisationId,
              contactId,
            });
          }
        }
      },
    },
    {
      name: 'outbox',
      async run(group, tx) {
        // Page views of identified organisations (page.visited alerts want them).
        const views = group.requests.flatMap(({ context }): DomainEvent[] => {
          const organisationId = organisationOf(group, context);
          const workspaceId = context.script.workspaceId;
          if (!organisationId || !group.interested.has(workspaceId)) return [];
          return context.events
            .filter((event) => event.type === 'pageview')
            .map((event) => ({
              kind: 'page.visited' as const,
              workspaceId,
              organisationId,
              url: event.url,
            }));
        });
        const events = [...group.events, ...views];
        if (events.length === 0) return;
        await sql`${PREPARED}${recordEvents(eventValues(events))}`.execute(await tx.db());
      },
    },
  ];
}

/** The group write inside a transaction of the caller's, who commits it. */
export type WriteWithin = (
  tx: Transaction<Database>,
  requests: WriteRequest[],
) => Promise<{ committed(): void }>;

/**
 * The phases for `requests` in `tx`, each phase's time observed in
 * footfall_write_phase_seconds; the caller commits, then calls `committed()` for what must
 * be remembered only once the data is in (caches that must not hold what rolled back).
 */
export function writeWithin(deps: WriterDeps): WriteWithin {
  const list = phases(deps);
  return async (tx, requests) => {
    const group: GroupWrite = {
      requests,
      interested: new Map(),
      organisations: new Map(),
      events: [],
      afterCommit: [],
    };
    // Every statement's rollups (sessions, events) are summed and added with the commit.
    deferRollups(tx);
    for (const phase of list) {
      const started = performance.now();
      await phase.run(group, tx);
      deps.metrics.phaseSeconds.observe(
        { phase: phase.name },
        (performance.now() - started) / 1000,
      );
    }
    return {
      committed: () => {
        for (const done of group.afterCommit) done();
      },
    };
  };
}

/**
 * Runs `write` on the requests not yet refused; when it fails because some of their scripts
 * are gone (lockScripts), marks those `refused` and runs it again on the rest.
 */
export async function withoutGoneScripts(
  requests: WriteRequest[],
  write: (live: WriteRequest[]) => Promise<void>,
): Promise<void> {
  let live = requests.filter((request) => !request.refused);
  while (live.length > 0) {
    try {
      return await write(live);
    } catch (error) {
      const gone = goneScripts(error);
      const refused = live.filter((request) => gone?.has(request.context.script.id));
      if (!gone || refused.length === 0) throw error;
      for (const request of refused) request.refused = gone.get(request.context.script.id);
      live = live.filter((request) => !request.refused);
    }
  }
}
