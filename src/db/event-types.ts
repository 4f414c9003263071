/**
 * The event types a session lists and `event.tracked` announces, in the order the API names
 * them. The collector takes two more that only feed other figures: `page_leave` (time on
 * page) and `identify` (who the visitor is).
 */
export const TRACKED_EVENT_TYPES = [
  'pageview',
  'form_submit',
  'form_abandon',
  'click',
  'download',
  'custom',
] as const;
export type TrackedEventType = (typeof TRACKED_EVENT_TYPES)[number];
