import { type Location, UNKNOWN_LOCATION } from '../identify/geo.js';
import type { ResolvedOrganisation } from '../identify/resolver.js';
import type { TrackedEvent } from './body.js';
import type { IngestContext } from './pipeline.js';

/** A kept event as a record carries it: its time as an ISO 8601 string (UTC, milliseconds). */
export type RecordedEvent = Omit<TrackedEvent, 'ts'> & { ts: string };

/**
 * A collect request after the pipeline: everything the writer needs, as plain data that
 * survives JSON unchanged, so a queue between the collector and the writer (contract §19)
 * can carry it. Nothing the writer does not use: no client address, no compiled filters.
 */
export interface IngestRecord {
  /** The tracking script it came through; the writer checks it is still active. */
  script: {
    id: string;
    workspaceId: string;
    /** The registrable domains of the site and its accepted hostnames (sessions' source). */
    siteDomains: string[];
  };
  visitorId: string;
  /** From the user agent; empty when the pipeline stopped before reading it. */
  agent: { browser: string; deviceType: string };
  location: Location;
  /** Who the visitor is with; `email` is set when this request identified the visitor. */
  organisation: ResolvedOrganisation | null;
  /** The events the pipeline kept, possibly none: the script is checked all the same. */
  events: RecordedEvent[];
}

/** The record of a request the pipeline has run on. */
export function recordOf(context: IngestContext): IngestRecord {
  const { script, agent, location } = context;
  return {
    script: { id: script.id, workspaceId: script.workspaceId, siteDomains: script.siteDomains },
    visitorId: context.visitorId,
    agent: { browser: agent?.browser ?? '', deviceType: agent?.deviceType ?? '' },
    location: location ?? UNKNOWN_LOCATION,
    organisation: context.organisation ?? null,
    events: context.events.map((event) => ({ ...event, ts: event.ts.toISOString() })),
  };
}

/** A recorded event as the sessionizer reads it. */
export const trackedEvent = (event: RecordedEvent): TrackedEvent => ({
  ...event,
  ts: new Date(event.ts),
});
