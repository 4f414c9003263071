import type { Location } from '../identify/geo.js';
import type { TrackedEvent } from './body.js';
import { DIRECT, trafficSource } from './source.js';

/** What one collect request knows about its visitor, shared by its events. */
export interface Visit {
  workspaceId: string;
  visitorId: string;
  browser: string;
  deviceType: string;
  location: Location;
  organisationId: string | null;
  /** The registrable domains of the site itself: referrers there are no source. */
  siteDomains?: readonly string[];
}

export interface SessionState {
  id: string;
  workspaceId: string;
  visitorId: string;
  startedAt: Date;
  endedAt: Date;
  organisationId: string | null;
  referrer: string;
  referrerAt: Date | null;
  /** Where the visit came from (source.ts), from the same page view as `referrer`. */
  source: string;
  /** The visitor's previous session's source, for a self-referral; not stored. */
  carried?: string;
  location: Location;
  browser: string;
  deviceType: string;
  pageviews: number;
}

export interface VisitEvent {
  visit: Visit;
  event: TrackedEvent;
}

/**
 * Assigns one visitor's events, sorted by time, to sessions: an event joins the visitor's
 * latest session when it lies within `idleMs` of it, judged by the events' own `ts`;
 * otherwise it starts a new one, whatever session id the client sent (contract §5).
 * Returns every session it created or changed, and each event's session id.
 */
export function sessionize(
  latest: SessionState | undefined,
  events: VisitEvent[],
  idleMs: number,
  newId: () => string,
): { sessions: SessionState[]; sessionIds: string[] } {
  const touched = new Map<string, SessionState>();
  const sessionIds: string[] = [];
  let current = latest ? { ...latest } : undefined;
  for (const { visit, event } of events) {
    const at = event.ts.getTime();
    const joins =
      current !== undefined &&
      at <= current.endedAt.getTime() + idleMs &&
      at >= current.startedAt.getTime() - idleMs;
    if (!current || !joins) {
      current = {
        id: newId(),
        workspaceId: visit.workspaceId,
        visitorId: visit.visitorId,
        startedAt: event.ts,
        endedAt: event.ts,
        organisationId: visit.organisationId,
        referrer: '',
        referrerAt: null,
        source: DIRECT,
        carried: current?.source,
        location: visit.location,
        browser: visit.browser,
        deviceType: visit.deviceType,
        pageviews: 0,
      };
    } else {
      if (at < current.startedAt.getTime()) current.startedAt = event.ts;
      if (at > current.endedAt.getTime()) current.endedAt = event.ts;
      current.organisationId ??= visit.organisationId;
    }
    if (event.type === 'pageview') current.pageviews += 1;
    if (
      event.type === 'pageview' &&
      (current.referrerAt === null || at < current.referrerAt.getTime())
    ) {
      current.referrer = String(event.data.referrer ?? '');
      current.referrerAt = event.ts;
      // A self-referral says nothing new: the visit goes on from the previous session (or
      // from what this one already had, when an earlier page view arrives late).
      current.source =
        trafficSource(event.url, current.referrer, visit.siteDomains ?? []) ??
        current.carried ??
        current.source;
    }
    touched.set(current.id, current);
    sessionIds.push(current.id);
  }
  return { sessions: [...touched.values()], sessionIds };
}
