import { randomUUID } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

// ---------------------------------------------------------------------------------------
// What both CRM stand-ins share (pipedrive.ts imports these): recording, the rolling
// windows behind the rate limits, throttleNext, and the loopback server itself.
// ---------------------------------------------------------------------------------------

/** One call as a stand-in saw it, refused ones too: `status` is what it answered. */
export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The JSON body; the raw text when it did not parse; undefined when there was none. */
  body: unknown;
  status: number;
  /** Date.now() when the call arrived (and was judged against the rate limits). */
  at: number;
}

export interface ThrottleOptions {
  /** Leave Retry-After out, to see what a client does when no wait is named. */
  omitRetryAfter?: boolean;
}

/** A call as a route sees it. */
export interface Incoming {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The body was there but was not JSON (`body` then holds the raw text). */
  unparsable: boolean;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Thrown from deep inside a route to answer at once with the vendor's error. */
export class Refusal extends Error {
  constructor(readonly reply: Reply) {
    super(`refused with ${reply.status}`);
  }
}

/**
 * The calls let through in the last `windowMs`, for a vendor's "N per rolling window"
 * limit: a call arriving while `max` are in the window is refused (and not counted).
 */
export class RollingWindow {
  private readonly times: number[] = [];

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  private forget(now: number) {
    while ((this.times[0] ?? Number.POSITIVE_INFINITY) <= now - this.windowMs) this.times.shift();
  }

  isFull(now: number): boolean {
    this.forget(now);
    return this.times.length >= this.max;
  }

  take(now: number) {
    this.times.push(now);
  }

  remaining(now: number): number {
    this.forget(now);
    return Math.max(0, this.max - this.times.length);
  }

  /** Whole seconds (at least 1) until the oldest call leaves the window. */
  secondsUntilFree(now: number): number {
    this.forget(now);
    const oldest = this.times[0] ?? now;
    return Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
  }
}

/** The 429s a test asked for with throttleNext, answered before anything else is looked at. */
export class Throttle {
  private pending = 0;
  private seconds = 0;
  private omitRetryAfter = false;

  set(n: number, retryAfterSeconds: number, options: ThrottleOptions = {}) {
    this.pending = n;
    this.seconds = retryAfterSeconds;
    this.omitRetryAfter = options.omitRetryAfter ?? false;
  }

  /** The wait to name for this call if it is to be throttled; null to let it on. */
  take(): { seconds: number; retryAfter: Record<string, string> } | null {
    if (this.pending <= 0) return null;
    this.pending--;
    const retryAfter: Record<string, string> = this.omitRetryAfter
      ? {}
      : { 'retry-after': String(this.seconds) };
    return { seconds: this.seconds, retryAfter };
  }
}

function parseBody(raw: string): { body: unknown; unparsable: boolean } {
  if (raw === '') return { body: undefined, unparsable: false };
  try {
    return { body: JSON.parse(raw), unparsable: false };
  } catch {
    return { body: raw, unparsable: true };
  }
}

/**
 * A JSON server on loopback (random port) answering with `answer`, which decides at once
 * when a call arrives (so rate limits see arrival times); the answer is then held back
 * `latencyMs()` to stand for the network and the vendor's own work. Every call is recorded.
 */
export async function serveStandIn(
  answer: (call: Incoming) => Reply,
  calls: RecordedCall[],
  latencyMs: () => number,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const url = new URL(request.url ?? '/', 'http://stand-in.test');
      const call: Incoming = {
        method: request.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: request.headers,
        ...parseBody(Buffer.concat(chunks).toString('utf8')),
      };
      const at = Date.now();
      let reply: Reply;
      try {
        reply = answer(call);
      } catch (error) {
        // A Refusal is the vendor's answer; anything else is a bug here, shown as a 500.
        reply =
          error instanceof Refusal
            ? error.reply
            : { status: 500, body: { message: `stand-in failed: ${String(error)}` } };
      }
      const { method, path, query, body } = call;
      calls.push({ method, path, query, body, status: reply.status, at });
      const wait = latencyMs();
      if (wait > 0) await sleep(wait);
      if (response.destroyed) return;
      response.writeHead(reply.status, {
        'content-type': 'application/json;charset=utf-8',
        ...reply.headers,
      });
      response.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The value as a plain JSON object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

// ---------------------------------------------------------------------------------------
// HubSpot
// ---------------------------------------------------------------------------------------

export type HubSpotObjectType = 'companies' | 'contacts' | 'notes';

export interface HubSpotObject {
  /** Numeric, as a string. */
  id: string;
  /** Every value a string (numbers written as text) or null; hs_object_id, createdate, hs_lastmodifieddate always there. */
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: false;
}

export interface PropertyOption {
  label: string;
  value: string;
  displayOrder: number;
  hidden: boolean;
}

export interface PropertyDef {
  name: string;
  label: string;
  /** string, number, date, datetime, enumeration or bool. */
  type: string;
  fieldType: string;
  groupName: string;
  description: string;
  displayOrder: number;
  hasUniqueValue: boolean;
  hidden: boolean;
  formField: boolean;
  calculated: boolean;
  externalOptions: boolean;
  options: PropertyOption[];
  createdAt: string;
  updatedAt: string;
  archived: false;
}

export interface HubSpotAssociation {
  fromType: HubSpotObjectType;
  fromId: string;
  toType: HubSpotObjectType;
  toId: string;
  typeId: number;
}

export interface HubSpotLimits {
  /** Private apps on Free and Starter: 100 per rolling 10 s. */
  requestsPer10s: number;
  /** The CRM search endpoints: 4 per second (these count against both). */
  searchPerSecond: number;
}

export interface HubSpotStandInOptions {
  /** The private app token it accepts; `pat-na1-standin-token` by default. */
  token?: string;
  /** The limits it enforces (documented ones by default); false enforces none. */
  limits?: false | Partial<HubSpotLimits>;
  /** Every answer waits this long (default 0). */
  latencyMs?: number;
}

export interface HubSpotStandIn {
  /** `http://127.0.0.1:PORT`, no trailing slash (for HUBSPOT_API_URL). */
  url: string;
  token: string;
  calls: RecordedCall[];
  objects: Record<HubSpotObjectType, Map<string, HubSpotObject>>;
  associations: HubSpotAssociation[];
  properties: Map<HubSpotObjectType, Map<string, PropertyDef>>;
  /** Calls refused for breaking an enforced limit (throttleNext's 429s not counted). */
  overLimit: number;
  /** Every answer waits this long; may be changed at any time. */
  latencyMs: number;
  /** From now on every call is answered 401, as when the private app's token is revoked. */
  revoke(): void;
  /** The next n calls are answered 429 naming this wait. */
  throttleNext(n: number, retryAfterSeconds: number, options?: ThrottleOptions): void;
  /** Companies by lower-cased domain, to assert one company per domain. */
  companiesByDomain(): Map<string, HubSpotObject[]>;
  /** The notes associated with a company (either direction). */
  notesOf(companyId: string | number): HubSpotObject[];
  /** The contacts associated with a company (either direction). */
  contactsOf(companyId: string | number): HubSpotObject[];
  close(): Promise<void>;
}

const OBJECT_TYPES: readonly HubSpotObjectType[] = ['companies', 'contacts', 'notes'];
// v4 object type ids, as associations answers name them.
const TYPE_IDS: Record<HubSpotObjectType, string> = {
  contacts: '0-1',
  companies: '0-2',
  notes: '0-46',
};
const SINGULAR: Record<HubSpotObjectType, string> = {
  companies: 'COMPANY',
  contacts: 'CONTACT',
  notes: 'NOTE',
};

// HubSpot-defined association types between these objects, by id: [from, to].
const ASSOCIATION_TYPES: Record<number, [HubSpotObjectType, HubSpotObjectType]> = {
  1: ['contacts', 'companies'], // primary company
  2: ['companies', 'contacts'],
  189: ['companies', 'notes'],
  190: ['notes', 'companies'],
  201: ['contacts', 'notes'],
  202: ['notes', 'contacts'],
  279: ['contacts', 'companies'],
  280: ['companies', 'contacts'],
};
// What v4 "associate default" uses for each pair.
const DEFAULT_TYPES: Record<string, number> = {
  'contacts>companies': 279,
  'companies>contacts': 280,
  'notes>companies': 190,
  'notes>contacts': 202,
  'companies>notes': 189,
  'contacts>notes': 201,
};

// Returned when a read names no properties (HubSpot's documented defaults), besides the
// three every object has.
const DEFAULT_PROPERTIES: Record<HubSpotObjectType, string[]> = {
  companies: ['name', 'domain'],
  contacts: ['email', 'firstname', 'lastname', 'lastmodifieddate'],
  notes: [],
};
const SYSTEM_PROPERTIES = ['hs_object_id', 'createdate', 'hs_lastmodifieddate'];
const READ_ONLY = new Set(['hs_object_id', 'hs_lastmodifieddate', 'lastmodifieddate']);

const PROPERTY_TYPES = new Set(['string', 'number', 'date', 'datetime', 'enumeration', 'bool']);
const FIELD_TYPES = new Set([
  'text',
  'textarea',
  'number',
  'date',
  'select',
  'radio',
  'checkbox',
  'booleancheckbox',
  'phonenumber',
  'html',
  'file',
  'calculation_equation',
]);

// A handful of HubSpot's fixed `industry` options.
const INDUSTRIES = [
  ['ACCOUNTING', 'Accounting'],
  ['COMPUTER_SOFTWARE', 'Computer Software'],
  ['FINANCIAL_SERVICES', 'Financial Services'],
  ['HIGHER_EDUCATION', 'Higher Education'],
  ['HOSPITAL_HEALTH_CARE', 'Hospital & Health Care'],
  ['INFORMATION_TECHNOLOGY_AND_SERVICES', 'Information Technology and Services'],
  ['INTERNET', 'Internet'],
  ['MARKETING_AND_ADVERTISING', 'Marketing and Advertising'],
  ['RETAIL', 'Retail'],
];

// Search: documented page size, filter limits (since August 2024) and result cap.
const SEARCH_MAX_LIMIT = 200;
const SEARCH_MAX_RESULTS = 10_000;
const MAX_GROUPS = 5;
const MAX_FILTERS_PER_GROUP = 10;
const MAX_FILTERS = 25;
const MAX_IN_VALUES = 100;
const MAX_BATCH = 100;
const LIST_MAX_LIMIT = 100;

const UNAUTHORIZED =
  'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview';

/** HubSpot's error body. */
function failure(
  status: number,
  message: string,
  category: string,
  extra: Record<string, unknown> = {},
): Refusal {
  return new Refusal({
    status,
    body: { status: 'error', message, correlationId: randomUUID(), category, ...extra },
  });
}
const invalid = (message: string) => failure(400, message, 'VALIDATION_ERROR');

function propertyDef(
  fields: Pick<PropertyDef, 'name' | 'label' | 'type' | 'fieldType' | 'groupName'> &
    Partial<PropertyDef>,
  displayOrder = -1,
): PropertyDef {
  const now = new Date().toISOString();
  return {
    description: '',
    displayOrder,
    hasUniqueValue: false,
    hidden: false,
    formField: false,
    calculated: false,
    externalOptions: false,
    options: [],
    createdAt: now,
    updatedAt: now,
    ...fields,
    archived: false,
  };
}

/** The standard properties of each object, as a new portal has them. */
function seedProperties(): Map<HubSpotObjectType, Map<string, PropertyDef>> {
  const text = (name: string, label: string, groupName: string, fieldType = 'text') =>
    propertyDef({ name, label, type: 'string', fieldType, groupName });
  const datetime = (name: string, label: string, groupName: string) =>
    propertyDef({ name, label, type: 'datetime', fieldType: 'date', groupName });
  const system = (groupName: string) => [
    propertyDef({
      name: 'hs_object_id',
      label: 'Record ID',
      type: 'number',
      fieldType: 'number',
      groupName,
    }),
    datetime('createdate', 'Create Date', groupName),
    datetime('hs_lastmodifieddate', 'Last Modified Date', groupName),
  ];
  const industry = propertyDef({
    name: 'industry',
    label: 'Industry',
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'companyinformation',
    options: INDUSTRIES.map(([value = '', label = ''], displayOrder) => ({
      label,
      value,
      displayOrder,
      hidden: false,
    })),
  });
  const companies = [
    text('name', 'Company name', 'companyinformation'),
    text('domain', 'Company Domain Name', 'companyinformation'),
    text('phone', 'Phone Number', 'companyinformation', 'phonenumber'),
    text('city', 'City', 'companyinformation'),
    text('country', 'Country/Region', 'companyinformation'),
    industry,
    text('website', 'Website URL', 'companyinformation'),
    text('description', 'Description', 'companyinformation', 'textarea'),
    ...system('companyinformation'),
  ];
  const contacts = [
    text('email', 'Email', 'contactinformation'),
    text('firstname', 'First Name', 'contactinformation'),
    text('lastname', 'Last Name', 'contactinformation'),
    text('company', 'Company Name', 'contactinformation'),
    text('phone', 'Phone Number', 'contactinformation', 'phonenumber'),
    ...system('contactinformation'),
    // Contacts keep their own last-modified property besides hs_lastmodifieddate.
    datetime('lastmodifieddate', 'Last Modified Date', 'contactinformation'),
  ];
  const notes = [
    datetime('hs_timestamp', 'Activity date', 'engagement'),
    text('hs_note_body', 'Note body', 'engagement', 'html'),
    ...system('engagement'),
  ];
  const byName = (defs: PropertyDef[]) => new Map(defs.map((def) => [def.name, def]));
  return new Map([
    ['companies', byName(companies)],
    ['contacts', byName(contacts)],
    ['notes', byName(notes)],
  ]);
}

interface ValueProblem {
  isValid: false;
  message: string;
  error: string;
  name: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Why HubSpot would refuse this value for this property, or null. */
function valueProblem(
  type: HubSpotObjectType,
  def: PropertyDef,
  value: string | null,
): ValueProblem | null {
  const problem = (error: string, message: string): ValueProblem => ({
    isValid: false,
    message,
    error,
    name: def.name,
  });
  if (value === null || value === '') return null;
  switch (def.type) {
    case 'enumeration': {
      const allowed = new Set(def.options.map((option) => option.value));
      const chosen = def.fieldType === 'checkbox' ? value.split(';') : [value];
      const wrong = chosen.find((option) => !allowed.has(option));
      return wrong === undefined
        ? null
        : problem(
            'INVALID_OPTION',
            `${wrong} was not one of the allowed options: [${[...allowed].join(', ')}]`,
          );
    }
    case 'number':
      return Number.isFinite(Number(value))
        ? null
        : problem('INVALID_FLOAT', `${value} is not a valid number.`);
    case 'datetime':
      return /^\d+$/.test(value) || !Number.isNaN(Date.parse(value))
        ? null
        : problem('INVALID_DATE', `${value} is not a valid datetime.`);
    case 'date':
      return DAY.test(value) || (/^\d+$/.test(value) && Number(value) % 86_400_000 === 0)
        ? null
        : problem('INVALID_DATE', `${value} is not a valid date (midnight UTC).`);
    case 'bool':
      return /^(true|false)$/i.test(value)
        ? null
        : problem('INVALID_BOOLEAN', `${value} is not a valid boolean.`);
    default:
      return type === 'contacts' && def.name === 'email' && !EMAIL.test(value)
        ? problem('INVALID_EMAIL', `Email address ${value} is invalid`)
        : null;
  }
}

/** Contacts' e-mail addresses are unique regardless of case, and kept lower-cased. */
const isContactEmail = (type: HubSpotObjectType, name: string) =>
  type === 'contacts' && name === 'email';

/** A property value as HubSpot keeps it: text, or null; undefined for what it cannot take. */
function asValue(raw: unknown): string | null | undefined {
  if (raw === null) return null;
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  return undefined;
}

function filterString(raw: unknown): string | undefined {
  return raw === undefined || raw === null ? undefined : String(raw);
}

interface Filter {
  propertyName: string;
  operator: string;
  value?: string;
  highValue?: string;
  values?: string[];
}

const OPERATORS = new Set([
  'EQ',
  'NEQ',
  'LT',
  'LTE',
  'GT',
  'GTE',
  'BETWEEN',
  'IN',
  'NOT_IN',
  'HAS_PROPERTY',
  'NOT_HAS_PROPERTY',
  'CONTAINS_TOKEN',
  'NOT_CONTAINS_TOKEN',
]);

function parseFilter(raw: unknown): Filter {
  const filter = asRecord(raw);
  const propertyName = filter?.propertyName;
  const operator = filter?.operator;
  if (typeof propertyName !== 'string' || typeof operator !== 'string') {
    throw invalid('Each filter needs a propertyName and an operator.');
  }
  if (!OPERATORS.has(operator)) throw invalid(`Unknown filter operator: ${operator}`);
  const parsed: Filter = {
    propertyName,
    operator,
    value: filterString(filter?.value),
    highValue: filterString(filter?.highValue),
  };
  if (operator === 'IN' || operator === 'NOT_IN') {
    if (!Array.isArray(filter?.values)) throw invalid(`${operator} filters take 'values'.`);
    if (filter.values.length > MAX_IN_VALUES) {
      throw invalid(`${operator} filters take at most ${MAX_IN_VALUES} values.`);
    }
    parsed.values = filter.values.map(String);
  } else if (!operator.endsWith('HAS_PROPERTY') && parsed.value === undefined) {
    throw invalid(`${operator} filters take a 'value'.`);
  }
  if (operator === 'BETWEEN' && parsed.highValue === undefined) {
    throw invalid(`BETWEEN filters take a 'highValue'.`);
  }
  return parsed;
}

/** filterGroups, checked against HubSpot's limits. */
function parseFilterGroups(raw: unknown): Filter[][] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw invalid('filterGroups must be an array.');
  if (raw.length > MAX_GROUPS) {
    throw invalid(`Too many filter groups (${raw.length}); the maximum is ${MAX_GROUPS}.`);
  }
  const groups = raw.map((group: unknown) => {
    const filters = asRecord(group)?.filters ?? [];
    if (!Array.isArray(filters)) throw invalid('filters must be an array.');
    if (filters.length > MAX_FILTERS_PER_GROUP) {
      throw invalid(
        `Too many filters in a group (${filters.length}); the maximum is ${MAX_FILTERS_PER_GROUP}.`,
      );
    }
    return filters.map(parseFilter);
  });
  const total = groups.reduce((sum, group) => sum + group.length, 0);
  if (total > MAX_FILTERS) {
    throw invalid(`Too many filters (${total}); the maximum is ${MAX_FILTERS}.`);
  }
  return groups;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Numbers as numbers, dates as dates, anything else as text. */
function compare(a: string, b: string): number {
  const [x, y] = [Number(a), Number(b)];
  if (a !== '' && b !== '' && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  const [s, t] = [Date.parse(a), Date.parse(b)];
  if (!Number.isNaN(s) && !Number.isNaN(t)) return s - t;
  return a.localeCompare(b);
}

/** CONTAINS_TOKEN: a word of the value equals the token; `*` matches anything. */
function containsToken(actual: string, token: string): boolean {
  if (token.includes('*')) {
    const pattern = token
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    const whole = new RegExp(`^${pattern}$`, 'i');
    return whole.test(actual) || actual.split(/\s+/).some((word) => whole.test(word));
  }
  return actual
    .split(/[^\p{L}\p{N}@._-]+/u)
    .concat(actual)
    .some((word) => same(word, token));
}

function matches(object: HubSpotObject, filter: Filter): boolean {
  const actual = object.properties[filter.propertyName];
  const has = actual !== undefined && actual !== null && actual !== '';
  const value = filter.value ?? '';
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return has;
    case 'NOT_HAS_PROPERTY':
      return !has;
    case 'NEQ':
      return !has || !same(actual, value);
    case 'NOT_IN':
      return !has || !(filter.values ?? []).some((one) => same(actual, one));
    case 'NOT_CONTAINS_TOKEN':
      return !has || !containsToken(actual, value);
  }
  if (!has) return false;
  switch (filter.operator) {
    case 'EQ':
      return same(actual, value);
    case 'IN':
      return (filter.values ?? []).some((one) => same(actual, one));
    case 'CONTAINS_TOKEN':
      return containsToken(actual, value);
    case 'GT':
      return compare(actual, value) > 0;
    case 'GTE':
      return compare(actual, value) >= 0;
    case 'LT':
      return compare(actual, value) < 0;
    case 'LTE':
      return compare(actual, value) <= 0;
    default:
      return compare(actual, value) >= 0 && compare(actual, filter.highValue ?? '') <= 0;
  }
}

/** A search's `limit` (10 when not given; more than 200 is refused). */
function searchLimit(raw: unknown): number {
  if (raw === undefined) return 10;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 0 || limit > SEARCH_MAX_LIMIT) {
    throw invalid(`limit must be between 0 and ${SEARCH_MAX_LIMIT}; got ${String(raw)}.`);
  }
  return limit;
}

/** A search's `after`: the offset of the page; paging past 10,000 results is refused. */
function searchOffset(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return 0;
  const offset = Number(raw);
  if (!Number.isInteger(offset) || offset < 0) throw invalid(`Invalid 'after': ${String(raw)}.`);
  if (offset >= SEARCH_MAX_RESULTS) {
    throw invalid(`The search endpoints return at most ${SEARCH_MAX_RESULTS} results per query.`);
  }
  return offset;
}

function searchSort(raw: unknown): ((a: HubSpotObject, b: HubSpotObject) => number) | null {
  const first = Array.isArray(raw) ? asRecord(raw[0]) : undefined;
  const name = first?.propertyName;
  if (typeof name !== 'string') return null;
  const sign = first?.direction === 'DESCENDING' ? -1 : 1;
  return (a, b) => {
    const [x, y] = [a.properties[name], b.properties[name]];
    if (x == null || y == null) return x == null ? (y == null ? 0 : 1) : -1;
    return sign * compare(x, y);
  };
}

/** The names in a `properties` array or comma-separated list; undefined when none given. */
function propertyNames(raw: unknown): string[] | undefined {
  if (typeof raw === 'string') return raw.split(',').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((name): name is string => typeof name === 'string');
  return undefined;
}

/** An object as a read answers it: the named (or default) properties it has, and the system ones. */
function view(
  type: HubSpotObjectType,
  object: HubSpotObject,
  names = DEFAULT_PROPERTIES[type],
): HubSpotObject {
  const properties: Record<string, string | null> = {};
  for (const name of [...names, ...SYSTEM_PROPERTIES]) {
    const value = object.properties[name];
    if (value !== undefined) properties[name] = value;
  }
  return { ...object, properties };
}

/** A batch's `inputs`: an array of objects, at most `max`. */
function batchInputs(body: unknown, max = MAX_BATCH): Record<string, unknown>[] {
  const inputs = asRecord(body)?.inputs;
  if (!Array.isArray(inputs)) throw invalid("The batch needs an 'inputs' array.");
  if (inputs.length > max) {
    throw invalid(`Batch input limit exceeded: ${inputs.length} inputs; the limit is ${max}.`);
  }
  return inputs.map((input) => {
    const record = asRecord(input);
    if (!record) throw invalid('Each input must be an object.');
    return record;
  });
}

function requireType(raw: string): HubSpotObjectType {
  const type = OBJECT_TYPES.find((one) => one === raw);
  if (!type) throw invalid(`Unable to infer object type from: ${raw}`);
  return type;
}

interface Link {
  toType: HubSpotObjectType;
  toId: string;
  typeId: number;
}

/**
 * The in-memory portal: objects of each type, their properties and associations, with
 * HubSpot's rules for what may be written.
 */
class Portal {
  readonly objects: Record<HubSpotObjectType, Map<string, HubSpotObject>> = {
    companies: new Map(),
    contacts: new Map(),
    notes: new Map(),
  };
  readonly properties = seedProperties();
  readonly associations: HubSpotAssociation[] = [];
  private readonly associated = new Set<string>();
  /** Lower-cased e-mail address → contact id. */
  private readonly emails = new Map<string, string>();
  private nextId = 1000;

  defs(type: HubSpotObjectType): Map<string, PropertyDef> {
    return this.properties.get(type) as Map<string, PropertyDef>;
  }

  /** Property values as HubSpot stores them, or a 400 listing every value it refuses. */
  values(type: HubSpotObjectType, raw: unknown): Record<string, string | null> {
    if (raw === undefined) return {};
    const input = asRecord(raw);
    if (!input) throw invalid("'properties' must be an object.");
    const values: Record<string, string | null> = {};
    const problems: ValueProblem[] = [];
    for (const [name, given] of Object.entries(input)) {
      const value = asValue(given);
      const problem = this.problemOf(type, name, given, value);
      if (problem) problems.push(problem);
      else
        values[name] = isContactEmail(type, name) && value ? value.toLowerCase() : (value ?? null);
    }
    if (problems.length > 0) {
      throw invalid(`Property values were not valid: ${JSON.stringify(problems)}`);
    }
    return values;
  }

  private problemOf(
    type: HubSpotObjectType,
    name: string,
    given: unknown,
    value: string | null | undefined,
  ): ValueProblem | null {
    const problem = (error: string, message: string): ValueProblem => ({
      isValid: false,
      message,
      error,
      name,
    });
    const def = this.defs(type).get(name);
    if (!def) return problem('PROPERTY_DOESNT_EXIST', `Property "${name}" does not exist`);
    if (READ_ONLY.has(name)) {
      return problem(
        'READ_ONLY_VALUE',
        `${name} is a read only property; its value cannot be set.`,
      );
    }
    if (value === undefined) {
      return problem('INVALID_VALUE', `${JSON.stringify(given)} is not a valid value.`);
    }
    return valueProblem(type, def, value);
  }

  /** 409 when a contact's address is another contact's already (or twice in one batch). */
  checkEmails(
    type: HubSpotObjectType,
    writes: { id?: string; values: Record<string, string | null> }[],
  ) {
    if (type !== 'contacts') return;
    const seen = new Set<string>();
    for (const { id, values } of writes) {
      const email = values.email;
      if (!email) continue;
      const existing = this.emails.get(email);
      if (existing !== undefined && existing !== id) {
        throw failure(409, `Contact already exists. Existing ID: ${existing}`, 'CONFLICT');
      }
      if (seen.has(email)) throw invalid(`Duplicate email in the batch input: ${email}`);
      seen.add(email);
    }
  }

  /** Notes need their time and body. */
  checkRequired(type: HubSpotObjectType, values: Record<string, string | null>) {
    if (type !== 'notes') return;
    const missing = ['hs_timestamp', 'hs_note_body'].filter((name) => !values[name]);
    if (missing.length > 0) {
      throw invalid(`Missing required properties for NOTE: ${missing.join(', ')}`);
    }
  }

  /** Inline `associations` of a create, each to an existing object by a type that fits. */
  links(type: HubSpotObjectType, raw: unknown): Link[] {
    if (raw === undefined) return [];
    if (!Array.isArray(raw)) throw invalid("'associations' must be an array.");
    return raw.flatMap((entry: unknown) => {
      const association = asRecord(entry);
      const toId = filterString(asRecord(association?.to)?.id);
      const types = association?.types;
      if (toId === undefined || !Array.isArray(types)) {
        throw invalid("Each association needs 'to.id' and 'types'.");
      }
      return types.map((spec: unknown) => this.link(type, toId, asRecord(spec)));
    });
  }

  private link(
    type: HubSpotObjectType,
    toId: string,
    spec: Record<string, unknown> | undefined,
  ): Link {
    const typeId = Number(spec?.associationTypeId);
    const pair = ASSOCIATION_TYPES[typeId];
    if (!pair || pair[0] !== type || spec?.associationCategory !== 'HUBSPOT_DEFINED') {
      throw invalid(
        `${String(spec?.associationCategory)} association type ${String(spec?.associationTypeId)} is not valid from ${SINGULAR[type]}.`,
      );
    }
    const toType = pair[1];
    if (!this.objects[toType].has(toId)) {
      throw invalid(`No ${SINGULAR[toType]} with id ${toId} to associate with.`);
    }
    return { toType, toId, typeId };
  }

  create(
    type: HubSpotObjectType,
    values: Record<string, string | null>,
    links: Link[],
  ): HubSpotObject {
    const id = String(this.nextId++);
    const now = new Date().toISOString();
    const properties: Record<string, string | null> = {
      createdate: now,
      ...values,
      hs_object_id: id,
      hs_lastmodifieddate: now,
    };
    if (type === 'contacts') properties.lastmodifieddate = now;
    const object: HubSpotObject = {
      id,
      properties,
      createdAt: now,
      updatedAt: now,
      archived: false,
    };
    this.objects[type].set(id, object);
    if (type === 'contacts' && values.email) this.emails.set(values.email, id);
    for (const link of links) this.associate({ fromType: type, fromId: id, ...link });
    return object;
  }

  update(type: HubSpotObjectType, object: HubSpotObject, values: Record<string, string | null>) {
    if (type === 'contacts') {
      const before = object.properties.email;
      if ('email' in values && before) this.emails.delete(before);
      if (values.email) this.emails.set(values.email, object.id);
    }
    const now = new Date().toISOString();
    Object.assign(object.properties, values, { hs_lastmodifieddate: now });
    if (type === 'contacts') object.properties.lastmodifieddate = now;
    object.updatedAt = now;
  }

  /** Records an association once, however often it is asked for. */
  associate(association: HubSpotAssociation) {
    const { fromType, fromId, toType, toId, typeId } = association;
    const key = `${fromType}:${fromId}>${toType}:${toId}#${typeId}`;
    if (this.associated.has(key)) return;
    this.associated.add(key);
    this.associations.push(association);
  }

  /** Objects of `type` associated with a company, whichever way the association points. */
  associatedWith(companyId: string, type: HubSpotObjectType): HubSpotObject[] {
    const ids = new Set<string>();
    for (const a of this.associations) {
      if (a.fromType === type && a.toType === 'companies' && a.toId === companyId)
        ids.add(a.fromId);
      if (a.fromType === 'companies' && a.fromId === companyId && a.toType === type)
        ids.add(a.toId);
    }
    return [...ids].flatMap((id) => this.objects[type].get(id) ?? []);
  }
}

/** Starts and ends of a batch, as HubSpot reports them. */
function completed(startedAt: string, results: unknown[], extra: Record<string, unknown> = {}) {
  return {
    status: 'COMPLETE',
    results,
    ...extra,
    startedAt,
    completedAt: new Date().toISOString(),
  };
}

type Route = {
  method: string;
  pattern: RegExp;
  run(portal: Portal, params: string[], call: Incoming): Reply;
};

const ROUTES: Route[] = [
  { method: 'GET', pattern: /^\/crm\/v3\/objects\/([^/]+)$/, run: listObjects },
  { method: 'POST', pattern: /^\/crm\/v3\/objects\/([^/]+)\/search$/, run: searchObjects },
  { method: 'POST', pattern: /^\/crm\/v3\/objects\/([^/]+)\/batch\/create$/, run: batchCreate },
  { method: 'POST', pattern: /^\/crm\/v3\/objects\/([^/]+)\/batch\/update$/, run: batchUpdate },
  { method: 'GET', pattern: /^\/crm\/v3\/objects\/([^/]+)\/([^/]+)$/, run: getObject },
  { method: 'PATCH', pattern: /^\/crm\/v3\/objects\/([^/]+)\/([^/]+)$/, run: patchObject },
  { method: 'POST', pattern: /^\/crm\/v3\/objects\/([^/]+)$/, run: createObject },
  { method: 'GET', pattern: /^\/crm\/v3\/properties\/([^/]+)$/, run: listProperties },
  { method: 'POST', pattern: /^\/crm\/v3\/properties\/([^/]+)$/, run: createProperty },
  {
    method: 'POST',
    pattern: /^\/crm\/v3\/properties\/([^/]+)\/batch\/create$/,
    run: batchCreateProperties,
  },
  {
    method: 'POST',
    pattern: /^\/crm\/v4\/associations\/([^/]+)\/([^/]+)\/batch\/associate\/default$/,
    run: associateDefault,
  },
];

/** GET /crm/v3/objects/{type}?limit&after&properties: a page in id order. */
function listObjects(portal: Portal, [rawType = '']: string[], call: Incoming): Reply {
  const type = requireType(rawType);
  const limit = call.query.limit === undefined ? 10 : Number(call.query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX_LIMIT) {
    throw invalid(`limit must be between 1 and ${LIST_MAX_LIMIT}.`);
  }
  const after = Number(call.query.after ?? 0);
  const names = propertyNames(call.query.properties);
  const page: HubSpotObject[] = [];
  let more = false;
  for (const object of portal.objects[type].values()) {
    if (Number(object.id) <= after) continue;
    if (page.length === limit) {
      more = true;
      break;
    }
    page.push(view(type, object, names));
  }
  const last = page.at(-1);
  const paging = more && last ? { paging: { next: { after: last.id } } } : {};
  return { status: 200, body: { results: page, ...paging } };
}

function found(portal: Portal, type: HubSpotObjectType, id: string): HubSpotObject {
  const object = portal.objects[type].get(id);
  if (!object)
    throw failure(404, 'Object not found.  objectId are usually numeric.', 'OBJECT_NOT_FOUND');
  return object;
}

function getObject(portal: Portal, [rawType = '', id = '']: string[], call: Incoming): Reply {
  const type = requireType(rawType);
  const object = found(portal, type, decodeURIComponent(id));
  return { status: 200, body: view(type, object, propertyNames(call.query.properties)) };
}

function patchObject(portal: Portal, [rawType = '', id = '']: string[], call: Incoming): Reply {
  const type = requireType(rawType);
  const object = found(portal, type, decodeURIComponent(id));
  const values = portal.values(type, asRecord(call.body)?.properties);
  portal.checkEmails(type, [{ id: object.id, values }]);
  portal.update(type, object, values);
  return { status: 200, body: object };
}

function createObject(portal: Portal, [rawType = '']: string[], call: Incoming): Reply {
  const type = requireType(rawType);
  const input = asRecord(call.body);
  if (!input) throw invalid('The body must be an object with properties.');
  const values = portal.values(type, input.properties);
  portal.checkRequired(type, values);
  portal.checkEmails(type, [{ values }]);
  const links = portal.links(type, input.associations);
  return { status: 201, body: portal.create(type, values, links) };
}

/**
 * POST …/batch/create: all or nothing. The results come back in reverse order, because
 * HubSpot does not promise the inputs' order: clients must match them by property.
 */
function batchCreate(portal: Portal, [rawType = '']: string[], call: Incoming): Reply {
  const type = requireType(rawType);
  const startedAt = new Date().toISOString();
  const prepared = batchInputs(call.body).map((input) => {
    const values = portal.values(type, input.properties);
    portal.checkRequired(type, values);
    return { values, links: portal.links(type, input.associations) };
  });
  portal.checkEmails(type, prepared);
  const created = prepared.map(({ values, links }) => portal.create(type, values, links));
  return { status: 201, body: completed(startedAt, created.reverse()) };
}

/** POST …/batch/update: the ids it has are updated; missing ones make it a 207. */
function batchUpdate(portal: Portal, [rawType = '']: string[], call: Incoming): Reply {
  const type = requireType(rawType);
  const startedAt = new Date().toISOString();
  const inputs = batchInputs(call.body).map((input) => ({
    id: filterString(input.id) ?? '',
    values: portal.values(type, input.properties),
  }));
  const ids = inputs.map((input) => input.id);
  const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
  if (repeated.length > 0) {
    throw invalid(
      `Duplicate IDs found in batch input: [${repeated.join(', ')}]. IDs must be unique`,
    );
  }
  const present = inputs.filter((input) => portal.objects[type].has(input.id));
  portal.checkEmails(type, present);
  const results = present.map(({ id, values }) => {
    const object = portal.objects[type].get(id) as HubSpotObject;
    portal.update(type, object, values);
    return object;
  });
  const missing = ids.filter((id) => !portal.objects[type].has(id));
  if (missing.length === 0) return { status: 200, body: completed(startedAt, results) };
  const error = {
    status: 'error',
    category: 'OBJECT_NOT_FOUND',
    message: `Could not get some ${SINGULAR[type]} objects, they may be deleted or not exist. Check that ids are valid.`,
    context: { ids: missing },
  };
  return { status: 207, body: completed(startedAt, results, { numErrors: 1, errors: [error] }) };
}

/** POST …/search: filter groups ORed, filters ANDed; `after` is an offset. */
function searchObjects(portal: Portal, [rawType = '']: string[], call: Incoming): Reply {
  const type = requireType(rawType);
  const request = call.body === undefined ? {} : asRecord(call.body);
  if (!request) throw invalid('The search request must be an object.');
  const groups = parseFilterGroups(request.filterGroups);
  const limit = searchLimit(request.limit);
  const offset = searchOffset(request.after);
  const sort = searchSort(request.sorts);
  const matched = [...portal.objects[type].values()].filter(
    (object) =>
      groups.length === 0 || groups.some((group) => group.every((f) => matches(object, f))),
  );
  if (sort) matched.sort(sort);
  const names = propertyNames(request.properties);
  const results = matched.slice(offset, offset + limit).map((object) => view(type, object, names));
  const next = offset + limit;
  const paging = next < matched.length ? { paging: { next: { after: String(next) } } } : {};
  return { status: 200, body: { total: matched.length, results, ...paging } };
}

function listProperties(portal: Portal, [rawType = '']: string[]): Reply {
  return { status: 200, body: { results: [...portal.defs(requireType(rawType)).values()] } };
}

/** A property definition from a create call, or a 400 saying what is wrong with it. */
function newProperty(input: Record<string, unknown>): PropertyDef {
  const required = ['name', 'label', 'type', 'fieldType', 'groupName'] as const;
  const missing = required.filter((key) => typeof input[key] !== 'string' || input[key] === '');
  if (missing.length > 0) {
    throw invalid(`Property definition is missing required fields: ${missing.join(', ')}`);
  }
  const [name = '', label = '', type = '', fieldType = '', groupName = ''] = required.map((key) =>
    String(input[key]),
  );
  if (!/^[a-z][a-z0-9_]*$/.test(name)) {
    throw invalid(`Property name '${name}' must be lower case letters, digits and underscores.`);
  }
  if (!PROPERTY_TYPES.has(type)) throw invalid(`Invalid property type: ${type}`);
  if (!FIELD_TYPES.has(fieldType)) throw invalid(`Invalid fieldType: ${fieldType}`);
  const options = Array.isArray(input.options)
    ? input.options.map((raw: unknown, index) => {
        const option = asRecord(raw);
        return {
          label: String(option?.label ?? ''),
          value: String(option?.value ?? ''),
          displayOrder: Number(option?.displayOrder ?? index),
          hidden: option?.hidden === true,
        };
      })
    : [];
  return propertyDef({
    name,
    label,
    type,
    fieldType,
    groupName,
    description: typeof input.description === 'string' ? input.description : '',
    options,
    formField: input.formField === true,
    hasUniqueValue: input.hasUniqueValue === true,
  });
}

function refuseExisting(defs: Map<string, PropertyDef>, names: string[]) {
  const taken = names.find((name, index) => defs.has(name) || names.indexOf(name) !== index);
  if (taken !== undefined) {
    throw failure(409, `Property named '${taken}' already exists.`, 'OBJECT_ALREADY_EXISTS');
  }
}

function createProperty(portal: Portal, [rawType = '']: string[], call: Incoming): Reply {
  const defs = portal.defs(requireType(rawType));
  const def = newProperty(asRecord(call.body) ?? {});
  refuseExisting(defs, [def.name]);
  defs.set(def.name, def);
  return { status: 201, body: def };
}

/** All or nothing: one name that exists fails the whole batch with 409. */
function batchCreateProperties(portal: Portal, [rawType = '']: string[], call: Incoming): Reply {
  const defs = portal.defs(requireType(rawType));
  const startedAt = new Date().toISOString();
  const created = batchInputs(call.body).map(newProperty);
  refuseExisting(
    defs,
    created.map((def) => def.name),
  );
  for (const def of created) defs.set(def.name, def);
  return { status: 201, body: completed(startedAt, created) };
}

function objectId(raw: unknown): string | undefined {
  return filterString(asRecord(raw)?.id);
}

/** v4 default associations; every id must exist, and the same pair is kept once. */
function associateDefault(
  portal: Portal,
  [rawFrom = '', rawTo = '']: string[],
  call: Incoming,
): Reply {
  const [fromType, toType] = [requireType(rawFrom), requireType(rawTo)];
  const typeId = DEFAULT_TYPES[`${fromType}>${toType}`];
  if (typeId === undefined) throw invalid(`No default association from ${fromType} to ${toType}.`);
  const startedAt = new Date().toISOString();
  const pairs = batchInputs(call.body, Number.POSITIVE_INFINITY).map((input) => ({
    fromId: objectId(input.from) ?? '',
    toId: objectId(input.to) ?? '',
  }));
  const missing = pairs.flatMap(({ fromId, toId }) => [
    ...(portal.objects[fromType].has(fromId) ? [] : [`${SINGULAR[fromType]} ${fromId}`]),
    ...(portal.objects[toType].has(toId) ? [] : [`${SINGULAR[toType]} ${toId}`]),
  ]);
  if (missing.length > 0) throw invalid(`Could not find objects: ${missing.join(', ')}`);
  const results = pairs.map(({ fromId, toId }) => {
    portal.associate({ fromType, fromId, toType, toId, typeId });
    return {
      fromObjectTypeId: TYPE_IDS[fromType],
      fromObjectId: Number(fromId),
      toObjectTypeId: TYPE_IDS[toType],
      toObjectId: Number(toId),
      labels: [],
    };
  });
  return { status: 200, body: completed(startedAt, results) };
}

function route(portal: Portal, call: Incoming): Reply {
  for (const { method, pattern, run } of ROUTES) {
    const match = method === call.method ? pattern.exec(call.path) : null;
    if (match) return run(portal, match.slice(1), call);
  }
  throw failure(404, `No route for ${call.method} ${call.path}`, 'OBJECT_NOT_FOUND');
}

/**
 * HubSpot's CRM API (v3 objects, search, batch and properties; v4 default associations) as
 * a private app sees it, on loopback: in-memory companies, contacts and notes, the vendor's
 * request and error shapes, and its documented limits for private apps on Free/Starter
 * (100 calls per rolling 10 s; the search endpoints 4 per second, counting against both).
 * It records every call, and can revoke the token or throttle on request.
 */
export async function startHubSpotStandIn(
  options: HubSpotStandInOptions = {},
): Promise<HubSpotStandIn> {
  const portal = new Portal();
  const token = options.token ?? 'pat-na1-standin-token';
  const limits =
    options.limits === false
      ? null
      : { requestsPer10s: 100, searchPerSecond: 4, ...options.limits };
  const requests = limits && new RollingWindow(limits.requestsPer10s, 10_000);
  const searches = limits && new RollingWindow(limits.searchPerSecond, 1_000);
  const throttle = new Throttle();
  let revoked = false;

  const limitHeaders = (now: number): Record<string, string> =>
    requests
      ? {
          'x-hubspot-ratelimit-max': String(requests.max),
          'x-hubspot-ratelimit-remaining': String(requests.remaining(now)),
          'x-hubspot-ratelimit-interval-milliseconds': String(requests.windowMs),
        }
      : {};
  const tooMany = (policy: 'TEN_SECONDLY_ROLLING' | 'SECONDLY', seconds: number | null) =>
    new Refusal({
      status: 429,
      headers: seconds === null ? {} : { 'retry-after': String(seconds) },
      body: {
        status: 'error',
        message: `You have reached your ${policy === 'SECONDLY' ? 'secondly' : 'ten_secondly_rolling'} limit.`,
        errorType: 'RATE_LIMIT',
        correlationId: randomUUID(),
        policyName: policy,
      },
    });

  /** Counts the call against the windows it falls in, or refuses it (overLimit). */
  const admit = (call: Incoming, now: number) => {
    if (!requests || !searches) return;
    const search = call.method === 'POST' && call.path.endsWith('/search');
    const refusal = requests.isFull(now)
      ? tooMany('TEN_SECONDLY_ROLLING', requests.secondsUntilFree(now))
      : search && searches.isFull(now)
        ? tooMany('SECONDLY', 1)
        : null;
    if (refusal) {
      state.overLimit++;
      throw refusal;
    }
    requests.take(now);
    if (search) searches.take(now);
  };

  const answer = (call: Incoming): Reply => {
    const now = Date.now();
    try {
      const throttled = throttle.take();
      if (throttled) {
        const reply = tooMany('TEN_SECONDLY_ROLLING', null).reply;
        throw new Refusal({ ...reply, headers: throttled.retryAfter });
      }
      if (revoked || call.headers.authorization !== `Bearer ${token}`) {
        throw failure(401, UNAUTHORIZED, 'INVALID_AUTHENTICATION');
      }
      admit(call, now);
      if (call.unparsable) {
        throw invalid(
          `Invalid input JSON on line 1, column 1: Unexpected character in ${call.path}`,
        );
      }
      const reply = route(portal, call);
      return { ...reply, headers: { ...limitHeaders(now), ...reply.headers } };
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const { reply } = error;
      return { ...reply, headers: { ...limitHeaders(now), ...reply.headers } };
    }
  };

  const calls: RecordedCall[] = [];
  const server = await serveStandIn(answer, calls, () => state.latencyMs);
  const state: HubSpotStandIn = {
    url: server.url,
    token,
    calls,
    objects: portal.objects,
    associations: portal.associations,
    properties: portal.properties,
    overLimit: 0,
    latencyMs: options.latencyMs ?? 0,
    revoke: () => {
      revoked = true;
    },
    throttleNext: (n, retryAfterSeconds, throttleOptions) =>
      throttle.set(n, retryAfterSeconds, throttleOptions),
    companiesByDomain: () => {
      const byDomain = new Map<string, HubSpotObject[]>();
      for (const company of portal.objects.companies.values()) {
        const domain = company.properties.domain?.toLowerCase();
        if (!domain) continue;
        const same = byDomain.get(domain);
        if (same) same.push(company);
        else byDomain.set(domain, [company]);
      }
      return byDomain;
    },
    notesOf: (companyId) => portal.associatedWith(String(companyId), 'notes'),
    contactsOf: (companyId) => portal.associatedWith(String(companyId), 'contacts'),
    close: server.close,
  };
  return state;
}
