import type { Static } from '@sinclair/typebox';
import { TRACKED_EVENT_TYPES } from '../db/event-types.js';
import type { SessionRecord } from './query.js';
import type { Session, SessionEvent } from './schemas.js';

type Event = SessionRecord['events'][number];
type Pair = { name: string; value: string };

const LISTED = new Set<string>(TRACKED_EVENT_TYPES);
const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? ''));
const whole = (value: unknown) => (typeof value === 'number' ? Math.round(value) : 0);

/**
 * A view's time on page: until the next view of the session, or for the last view the
 * page_leave figure of its address reported last after it (contract §5). A page is left
 * after the next one was asked for, whose view the tracker dates then: the page before
 * (the same address, when reloaded) reports its own leave after the last view began.
 */
function timesOnPage(events: Event[]): Map<Event, number> {
  const views = events.filter((event) => event.type === 'pageview');
  const times = new Map<Event, number>();
  views.forEach((view, index) => {
    const next = views[index + 1];
    if (next) {
      times.set(view, Math.round((next.ts.getTime() - view.ts.getTime()) / 1000));
    } else {
      // Events come in time order; a hidden page reports its time so far, each time larger.
      const leave = events.findLast(
        (e) => e.type === 'page_leave' && e.ts >= view.ts && e.url === view.url,
      );
      times.set(view, whole(leave?.data.time_on_page));
    }
  });
  return times;
}

function presentEvent(event: Event, timeOnPage: number | undefined): Static<typeof SessionEvent> {
  const base = {
    event_type: event.type as Static<typeof SessionEvent>['event_type'],
    url: event.url,
    triggered_at: event.ts.toISOString(),
  };
  const data = event.data;
  switch (event.type) {
    case 'pageview':
      return { ...base, time_on_page: timeOnPage ?? 0 };
    case 'form_submit':
    case 'form_abandon':
      return {
        ...base,
        form_id: text(data.form_id),
        form_name: text(data.form_name),
        time_spent: whole(data.time_spent),
        fields: (data.fields as Pair[] | undefined) ?? [],
      };
    case 'custom':
      return {
        ...base,
        name: text(data.name),
        properties: Object.entries((data.properties as object | undefined) ?? {}).map(
          ([name, value]) => ({ name, value: typeof value === 'string' ? value : String(value) }),
        ),
      };
    default:
      return {
        ...base,
        properties: [
          { name: 'href', value: text(data.href) },
          { name: 'text', value: text(data.text) },
        ],
      };
  }
}

/** A session as the API shows it; with `onlyEventId`, its events hold just that one. */
export function presentSession(
  record: SessionRecord,
  onlyEventId?: string,
): Static<typeof Session> {
  const times = timesOnPage(record.events);
  return {
    uuid: record.id,
    organisation_uuid: record.organisation_id,
    visitor_uuid: record.visitor_id,
    started_at: record.started_at.toISOString(),
    ended_at: record.ended_at.toISOString(),
    location: {
      country: record.country,
      state: record.state,
      city: record.city,
      latitude: record.latitude,
      longitude: record.longitude,
    },
    browser: record.browser,
    referrer: record.referrer,
    source: record.source,
    device_type: record.device_type,
    views: record.events
      .filter((event) => event.type === 'pageview')
      .map((view) => ({
        visited_at: view.ts.toISOString(),
        time_on_page: times.get(view) ?? 0,
        url: view.url,
      })),
    events: record.events
      .filter(
        (event) =>
          LISTED.has(event.type) && (onlyEventId === undefined || event.id === onlyEventId),
      )
      .map((event) => presentEvent(event, times.get(event))),
  };
}
