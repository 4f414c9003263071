import { badRequest, fieldError } from '../http/errors.js';
import { isDay } from '../http/validation.js';

export interface DateRange {
  from: Date;
  /** Exclusive. */
  to: Date;
}

const DAY_MS = 86_400_000;
// The day after 9999-12-31 has no ISO form PostgreSQL reads ("+010000-…"); ranges end at
// the last millisecond of 9999 instead, which no session reaches (events are never later
// than their arrival).
const END_OF_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const dayAfter = (day: Date) => new Date(Math.min(day.getTime() + DAY_MS, END_OF_TIME));

function parseDay(field: string, value: string): Date {
  if (!isDay(value)) {
    throw fieldError(field, `The ${field.replace('_', ' ')} field must be a date as YYYY-MM-DD.`);
  }
  return new Date(`${value}T00:00:00.000Z`);
}

/**
 * The UTC days a session list covers (contract §6): `date`, or `date_from` with an optional
 * `date_to` (default today). `required` is false where dates are optional.
 */
export function dateRange(
  query: { date?: string; date_from?: string; date_to?: string },
  required: boolean,
  today = new Date(),
): DateRange | null {
  if (query.date !== undefined && (query.date_from !== undefined || query.date_to !== undefined)) {
    throw badRequest('Give either date, or date_from with an optional date_to; not both.');
  }
  if (query.date !== undefined) {
    const day = parseDay('date', query.date);
    return { from: day, to: dayAfter(day) };
  }
  if (query.date_from === undefined) {
    if (required)
      throw badRequest('A date range is required: give date, or date_from (and date_to).');
    if (query.date_to === undefined) return null;
  }
  const from = query.date_from === undefined ? new Date(0) : parseDay('date_from', query.date_from);
  const last =
    query.date_to === undefined
      ? new Date(`${today.toISOString().slice(0, 10)}T00:00:00.000Z`)
      : parseDay('date_to', query.date_to);
  if (last.getTime() < from.getTime()) {
    throw fieldError('date_to', 'The date to field must be a date on or after date_from.');
  }
  return { from, to: dayAfter(last) };
}
