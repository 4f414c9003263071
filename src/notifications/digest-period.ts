/**
 * The periods digests are about, in a rule's IANA time zone: a daily digest covers the
 * previous local calendar day and is sent at 07:00 local; a weekly one covers the previous
 * local Monday..Sunday and is sent on Monday at 07:00 local. Bounds are the UTC instants at
 * which the local days begin, so a day is 23 or 25 hours long across a DST change.
 */

export type DigestKind = 'digest.daily' | 'digest.weekly';

export interface DigestPeriod {
  kind: DigestKind;
  /** The first local day, YYYY-MM-DD. */
  firstDay: string;
  /** The last local day (inclusive), YYYY-MM-DD. */
  lastDay: string;
  /** The instant the first day begins. */
  start: Date;
  /** The instant the day after the last day begins (exclusive). */
  end: Date;
  /** 07:00 local on the day after the period: when the digest is due. */
  sendAt: Date;
}

const DAY_MS = 86_400_000;
export const SEND_HOUR = 7;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** The wall-clock time in `zone` at `instant`, as if it were UTC (ms, whole seconds). */
function wallClock(instant: number, zone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** The zone's offset from UTC at `instant`, in ms. */
function offsetAt(instant: number, zone: string): number {
  return wallClock(instant, zone) - (instant - (((instant % 1000) + 1000) % 1000));
}

/**
 * The instant at which the wall clock in `zone` shows `wall` (a wall time written as UTC
 * ms). Of two such instants (clocks went back) the earlier; when the clock skips it
 * (clocks went forward) the time as many minutes later as the skip, as a clock that was
 * not changed would show it. Zones that change at midnight (e.g. America/Santiago) thus
 * begin such a day at 01:00.
 */
export function instantOf(wall: number, zone: string): Date {
  const offsets = new Set([
    offsetAt(wall - DAY_MS, zone),
    offsetAt(wall, zone),
    offsetAt(wall + DAY_MS, zone),
  ]);
  const candidates = [...offsets].map((offset) => wall - offset).sort((a, b) => a - b);
  const exact = candidates.find((instant) => wallClock(instant, zone) === wall);
  return new Date(exact ?? (candidates[candidates.length - 1] as number));
}

const day = (wall: number) => new Date(wall).toISOString().slice(0, 10);

/**
 * The latest period of `kind` whose digest is due at `now` (its 07:00 local has passed).
 * Only the latest: after downtime a server catches up one period, not every missed one.
 */
export function latestPeriod(kind: DigestKind, zone: string, now: Date): DigestPeriod {
  const wallNow = wallClock(now.getTime(), zone);
  const today = wallNow - (((wallNow % DAY_MS) + DAY_MS) % DAY_MS);
  let sendDay = today;
  if (kind === 'digest.weekly') {
    const weekday = new Date(today).getUTCDay(); // 0 Sunday .. 6 Saturday
    sendDay = today - ((weekday + 6) % 7) * DAY_MS; // the Monday of this week
  }
  const step = kind === 'digest.weekly' ? 7 * DAY_MS : DAY_MS;
  if (instantOf(sendDay + SEND_HOUR * 3_600_000, zone).getTime() > now.getTime()) {
    sendDay -= step;
  }
  const firstDay = sendDay - step;
  return {
    kind,
    firstDay: day(firstDay),
    lastDay: day(sendDay - DAY_MS),
    start: instantOf(firstDay, zone),
    end: instantOf(sendDay, zone),
    sendAt: instantOf(sendDay + SEND_HOUR * 3_600_000, zone),
  };
}
