import { type Static, Type } from '@sinclair/typebox';
import Ajv from 'ajv';
import { badRequest, HttpError } from '../http/errors.js';
import { cutText, findBadInput } from '../http/input.js';
import { fieldErrors } from '../http/validation.js';
import {
  hasCardNumber,
  MAX_FIELDS,
  MAX_VALUE_LENGTH,
  redactUrl,
  sensitiveName,
} from './sensitive.js';

export const EVENT_TYPES = [
  'pageview',
  'page_leave',
  'form_submit',
  'form_abandon',
  'click',
  'download',
  'custom',
  'identify',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const MAX_EVENTS = 100;
export const MAX_BODY_BYTES = 64 * 1024;

const Text = (maxLength: number) => Type.String({ maxLength });
// Page text the visitor's browser made (titles, link texts, addresses) is cut, not refused:
// a refused batch would lose the whole visit. The body limit bounds it anyway.
const PageText = Type.String({ maxLength: MAX_BODY_BYTES });
const TITLE_LENGTH = 1000;
const URL_LENGTH = 4096;
const Seconds = Type.Number({ minimum: 0, maximum: 31_536_000 });
const Pairs = Type.Array(Type.Object({ name: Type.String(), value: Type.Unknown() }));
const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);

const uuid = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const RawEvent = Type.Object({
  // The tracker's id of the event (contract §19): a request sent again stores it once.
  id: Type.Optional(Type.String({ pattern: uuid })),
  type: Type.Union(EVENT_TYPES.map((type) => Type.Literal(type))),
  ts: Type.Union([Type.String({ maxLength: 40 }), Type.Number()]),
  url: PageText,
  referrer: Type.Optional(PageText),
  title: Type.Optional(PageText),
  time_on_page: Type.Optional(Seconds),
  form_id: Type.Optional(Text(255)),
  form_name: Type.Optional(Text(255)),
  time_spent: Type.Optional(Seconds),
  fields: Type.Optional(Pairs),
  href: Type.Optional(PageText),
  text: Type.Optional(PageText),
  name: Type.Optional(Text(255)),
  properties: Type.Optional(Type.Record(Type.String(), Scalar)),
  email: Type.Optional(Text(320)),
  // Sites pass their own user objects to identify(); what is not a scalar is left out.
  traits: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

/** The body of POST /t/collect (contract §5), for the API reference and the check below. */
export const CollectBody = Type.Object({
  tracking_script_id: Type.String({ minLength: 1, maxLength: 64 }),
  anonymous_id: Type.String({ pattern: uuid }),
  session_uuid: Type.String({ pattern: uuid }),
  events: Type.Array(RawEvent, { minItems: 1 }),
});
type CollectBody = Static<typeof CollectBody>;
type RawEvent = Static<typeof RawEvent>;

const validate = new Ajv.default({ allErrors: false, strict: false }).compile<CollectBody>(
  CollectBody,
);

/** One event as the collector accepted it: common fields plus its type's own. */
export interface TrackedEvent {
  /** The tracker's id (lower case), absent from older trackers and other clients. */
  id?: string;
  type: EventType;
  ts: Date;
  url: string;
  data: Record<string, unknown>;
}

export interface Collected {
  trackingScriptId: string;
  visitorId: string;
  clientSessionId: string;
  events: TrackedEvent[];
}

// Clocks are wrong; an event from the future is taken as happening now.
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** Checks the wire shape of contract §5; 400 says what is wrong, 413 when over the limits. */
export function parseCollectBody(body: unknown, receivedAt: Date): Collected {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(
      'The body must be a JSON object with tracking_script_id, anonymous_id, session_uuid and events.',
    );
  }
  const events = (body as { events?: unknown }).events;
  if (Array.isArray(events) && events.length > MAX_EVENTS) {
    throw new HttpError(413, `At most ${MAX_EVENTS} events per request.`);
  }
  // Before the schema check, which recurses, and before anything is stored: one bad value
  // refuses the whole batch.
  const bad = findBadInput(body);
  if (bad) throw badRequest(`Invalid ${bad.field || 'body'}: it ${bad.problem}.`);
  if (!validate(body)) {
    const [field, problems] = Object.entries(fieldErrors(validate.errors ?? []))[0] ?? [];
    throw badRequest(`Invalid ${field ?? 'body'}: ${problems?.[0] ?? 'unexpected shape'}`);
  }
  return {
    trackingScriptId: body.tracking_script_id,
    visitorId: body.anonymous_id.toLowerCase(),
    clientSessionId: body.session_uuid.toLowerCase(),
    events: body.events.map((event, index) => normalise(event, index, receivedAt)),
  };
}

function normalise(event: RawEvent, index: number, receivedAt: Date): TrackedEvent {
  const ts = new Date(event.ts);
  if (Number.isNaN(ts.getTime()) || ts.getFullYear() < 2000) {
    throw badRequest(
      `Invalid events.${index}.ts: use an ISO 8601 timestamp or epoch milliseconds.`,
    );
  }
  const when = ts.getTime() > receivedAt.getTime() + FUTURE_TOLERANCE_MS ? receivedAt : ts;
  const need = (name: keyof RawEvent) => {
    if (event[name] === undefined)
      throw badRequest(`Invalid events.${index}: a ${event.type} event needs ${name}.`);
  };
  let data: Record<string, unknown>;
  switch (event.type) {
    case 'pageview':
      data = {
        referrer: storedUrl(event.referrer ?? ''),
        title: cutText(event.title ?? '', TITLE_LENGTH),
      };
      break;
    case 'page_leave':
      need('time_on_page');
      data = { time_on_page: Math.round(event.time_on_page ?? 0) };
      break;
    case 'form_submit':
    case 'form_abandon':
      data = {
        form_id: event.form_id ?? '',
        form_name: event.form_name ?? '',
        time_spent: Math.round(event.time_spent ?? 0),
        fields: safeFields(event.fields ?? []),
      };
      break;
    case 'click':
    case 'download':
      need('href');
      data = { href: storedUrl(event.href ?? ''), text: cutText(event.text ?? '', TITLE_LENGTH) };
      break;
    case 'custom':
      need('name');
      data = { name: event.name ?? '', properties: event.properties ?? {} };
      break;
    case 'identify':
      need('email');
      data = {
        email: (event.email ?? '').trim().toLowerCase(),
        traits: scalarsOf(event.traits ?? {}),
      };
      break;
  }
  const tracked: TrackedEvent = { type: event.type, ts: when, url: storedUrl(event.url), data };
  if (event.id) tracked.id = event.id.toLowerCase();
  return tracked;
}

// Pages and referrers repeat from visitor to visitor, and redacting one (parsing it, testing
// each parameter) is the largest part of checking a body. Only an address that redaction left
// as it was is remembered: one that held something sensitive is never kept in memory.
// A plain map, emptied when full: cheaper per lookup than a least-recently-used list.
const redacted = new Map<string, string>();
const REMEMBERED_URLS = 10_000;

// Hash routes (`#/path`) are kept, as the tracker sends them only where the site opted in;
// every other fragment, and credentials in a route, are cut.
const storedUrl = (url: string) => {
  let stored = redacted.get(url);
  if (stored === undefined) {
    stored = cutText(redactUrl(url, true), URL_LENGTH);
    if (stored === url) {
      if (redacted.size >= REMEMBERED_URLS) redacted.clear();
      redacted.set(url, stored);
    }
  }
  return stored;
};

const isScalar = (value: unknown) =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);
const scalarsOf = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => isScalar(value)));

/**
 * Names with their values as text, at most 50 of them; never a field whose name looks
 * sensitive nor a value holding a card number (the tracker's autocomplete check is its own).
 */
function safeFields(fields: { name: string; value: unknown }[]) {
  const kept: { name: string; value: string }[] = [];
  for (const field of fields) {
    const whole = typeof field.value === 'string' ? field.value : JSON.stringify(field.value ?? '');
    const value = cutText(whole, MAX_VALUE_LENGTH);
    // Checked whole and cut: the cut may leave the start of a longer run that passes Luhn.
    if (!field.name || sensitiveName(field.name) || hasCardNumber(whole) || hasCardNumber(value))
      continue;
    if (kept.push({ name: cutText(field.name, 255), value }) === MAX_FIELDS) break;
  }
  return kept;
}
