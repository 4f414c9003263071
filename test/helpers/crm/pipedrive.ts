import { randomBytes } from 'node:crypto';
import {
  asRecord,
  type Incoming,
  type RecordedCall,
  Refusal,
  type Reply,
  RollingWindow,
  serveStandIn,
  Throttle,
  type ThrottleOptions,
} from './hubspot.js';

export type { RecordedCall, ThrottleOptions } from './hubspot.js';

/** An organization as stored: custom field values sit at the top level under their 40-hex keys. */
export interface PipedriveOrg {
  id: number;
  name: string;
  address: string | null;
  owner_id: number;
  label: number | null;
  visible_to: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC, as Pipedrive writes times. */
  add_time: string;
  update_time: string;
  [customKey: string]: unknown;
}

export interface PipedriveEmail {
  value: string;
  primary: boolean;
  label: string;
}

export interface PipedrivePerson {
  id: number;
  name: string;
  email: PipedriveEmail[];
  phone: PipedriveEmail[];
  org_id: number | null;
  owner_id: number;
  visible_to: string;
  add_time: string;
  update_time: string;
}

export interface PipedriveNote {
  id: number;
  /** HTML. */
  content: string;
  org_id: number | null;
  person_id: number | null;
  deal_id: number | null;
  user_id: number;
  add_time: string;
  update_time: string;
}

export interface PipedriveField {
  id: number;
  key: string;
  name: string;
  field_type: string;
  /** false for Pipedrive's own fields, true for custom ones. */
  edit_flag: boolean;
  order_nr: number;
  add_time: string;
  update_time: string;
  active_flag: boolean;
  mandatory_flag: boolean;
  options?: { id: number; label: string }[];
}

export interface PipedriveLimits {
  /** The lowest plan's burst limit per api_token: 20 per rolling 2 s. */
  requestsPer2s: number;
  /** The Search API, on every plan: 10 per rolling 2 s (these count against both). */
  searchPer2s: number;
}

export interface PipedriveStandInOptions {
  /** The API token it accepts (40 hex digits by default). */
  token?: string;
  /** The limits it enforces (documented ones by default); false enforces none. */
  limits?: false | Partial<PipedriveLimits>;
  /** Every answer waits this long (default 0). */
  latencyMs?: number;
}

export interface PipedriveStandIn {
  /** `http://127.0.0.1:PORT`, no trailing slash (for PIPEDRIVE_API_URL). */
  url: string;
  token: string;
  calls: RecordedCall[];
  organizations: Map<number, PipedriveOrg>;
  persons: Map<number, PipedrivePerson>;
  notes: Map<number, PipedriveNote>;
  /** Pipedrive's own organization fields first, then custom ones as they are added. */
  organizationFields: PipedriveField[];
  /** Calls refused for breaking an enforced limit (throttleNext's 429s not counted). */
  overLimit: number;
  /** Every answer waits this long; may be changed at any time. */
  latencyMs: number;
  /** From now on every call is answered 401, as when the token is regenerated. */
  revoke(): void;
  /** The next n calls are answered 429 naming this wait (Retry-After and x-ratelimit-reset). */
  throttleNext(n: number, retryAfterSeconds: number, options?: ThrottleOptions): void;
  /** Organizations by the lower-cased value of a field (`name`, `address` or a custom key). */
  organizationsByField(key: string): Map<string, PipedriveOrg[]>;
  notesOf(orgId: number | string): PipedriveNote[];
  personsOf(orgId: number | string): PipedrivePerson[];
  close(): Promise<void>;
}

const ERROR_INFO =
  'Please check developers.pipedrive.com for more information about Pipedrive API.';
const OWNER = { id: 1, name: 'Stand-in Owner', email: 'owner@example.com' };

// What POST /organizationFields takes, and which custom fields the search looks into
// (Pipedrive's reference: address, varchar, text, varchar_auto, double, monetary, phone).
const FIELD_TYPES = new Set([
  'address',
  'date',
  'daterange',
  'double',
  'enum',
  'monetary',
  'org',
  'people',
  'phone',
  'set',
  'text',
  'time',
  'timerange',
  'user',
  'varchar',
  'varchar_auto',
]);
const SEARCHABLE_TYPES = new Set([
  'address',
  'varchar',
  'text',
  'varchar_auto',
  'double',
  'monetary',
  'phone',
]);
const ORGANIZATION_SEARCH_FIELDS = ['address', 'custom_fields', 'notes', 'name'];
const PERSON_SEARCH_FIELDS = ['custom_fields', 'email', 'notes', 'phone', 'name'];
const MAX_PAGE = 500;
const PIPEDRIVE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** Pipedrive's error body. */
function failure(status: number, error: string): Refusal {
  return new Refusal({
    status,
    body: {
      success: false,
      error,
      errorCode: status,
      error_info: ERROR_INFO,
      data: null,
      additional_data: null,
    },
  });
}
const invalid = (error: string) => failure(400, error);

const ok = (data: unknown, status = 200, additional_data?: unknown): Reply => ({
  status,
  body: { success: true, data, ...(additional_data === undefined ? {} : { additional_data }) },
});

/** Now as Pipedrive writes times: `YYYY-MM-DD HH:MM:SS`, UTC. */
const pipedriveNow = () => new Date().toISOString().slice(0, 19).replace('T', ' ');

function seedFields(): PipedriveField[] {
  const now = pipedriveNow();
  const standard: [string, string, string][] = [
    ['name', 'Name', 'varchar'],
    ['address', 'Address', 'address'],
    ['owner_id', 'Owner', 'user'],
    ['label', 'Label', 'enum'],
    ['visible_to', 'Visible to', 'visible_to'],
    ['add_time', 'Organization created', 'date'],
    ['update_time', 'Update time', 'date'],
  ];
  return standard.map(([key, name, field_type], index) => ({
    id: index + 1,
    key,
    name,
    field_type,
    edit_flag: false,
    order_nr: index,
    add_time: now,
    update_time: now,
    active_flag: true,
    mandatory_flag: key === 'name',
    ...(key === 'label'
      ? {
          options: [
            { id: 1, label: 'Customer' },
            { id: 2, label: 'Hot lead' },
          ],
        }
      : {}),
  }));
}

/** A non-negative integer from the query, or the default; a 400 for anything else. */
function queryNumber(
  raw: string | undefined,
  name: string,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
) {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw invalid(`Parameter '${name}' must be an integer between 0 and ${max}.`);
  }
  return value;
}

/** A page of `items` and Pipedrive's pagination block. */
function paginate<T>(items: T[], query: Record<string, string>) {
  const start = queryNumber(query.start, 'start', 0);
  const limit = queryNumber(query.limit, 'limit', 100, MAX_PAGE) || 100;
  const page = items.slice(start, start + limit);
  const more = start + limit < items.length;
  return {
    page,
    pagination: {
      start,
      limit,
      more_items_in_collection: more,
      ...(more ? { next_start: start + limit } : {}),
    },
  };
}

/** An id from a body (number or numeric string); null when absent or null. */
function idFrom(raw: unknown, name: string): number | null {
  if (raw === undefined || raw === null) return null;
  const id = Number(raw);
  if (!Number.isInteger(id) || id <= 0) throw invalid(`${name} must be an integer.`);
  return id;
}

/** `email` or `phone` as a person takes it: a string, strings, or {value, primary, label}s. */
function contactPoints(raw: unknown, name: string): PipedriveEmail[] {
  if (raw === undefined || raw === null) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  const points = list.map((entry: unknown, index) => {
    if (typeof entry === 'string') return { value: entry, primary: index === 0, label: 'work' };
    const point = asRecord(entry);
    if (typeof point?.value !== 'string') throw invalid(`Invalid ${name}.`);
    return {
      value: point.value,
      primary: typeof point.primary === 'boolean' ? point.primary : index === 0,
      label: typeof point.label === 'string' ? point.label : 'work',
    };
  });
  return points.filter((point) => point.value !== '');
}

interface SearchRequest {
  term: string;
  fields: Set<string>;
  exact: boolean;
}

/** The parameters of a search endpoint, checked as Pipedrive checks them. */
function searchRequest(query: Record<string, string>, allowed: string[]): SearchRequest {
  const term = query.term ?? '';
  const exact = query.exact_match === 'true' || query.exact_match === '1';
  if (term.length < (exact ? 1 : 2)) {
    throw invalid(`Search term must be at least ${exact ? 1 : 2} characters long.`);
  }
  const fields = query.fields ? query.fields.split(',').map((field) => field.trim()) : allowed;
  const wrong = fields.find((field) => !allowed.includes(field));
  if (wrong !== undefined) {
    throw invalid(`Invalid value for 'fields': ${wrong}. Allowed: ${allowed.join(', ')}.`);
  }
  return { term: term.toLowerCase(), fields: new Set(fields), exact };
}

/** 1 for a value equal to the term, 0.5 for one holding it (not exact), 0 for no match. */
function score(values: (string | null | undefined)[], search: SearchRequest): number {
  const texts = values.flatMap((value) => (value ? [value.toLowerCase()] : []));
  if (texts.some((text) => text === search.term)) return 1;
  if (search.exact) return 0;
  return texts.some((text) => text.includes(search.term)) ? 0.5 : 0;
}

/** The in-memory company account: organizations, persons, notes and organization fields. */
class Account {
  readonly organizations = new Map<number, PipedriveOrg>();
  readonly persons = new Map<number, PipedrivePerson>();
  readonly notes = new Map<number, PipedriveNote>();
  readonly organizationFields = seedFields();
  private nextId = 1;

  newId() {
    return this.nextId++;
  }

  customFields(): PipedriveField[] {
    return this.organizationFields.filter((field) => field.edit_flag);
  }

  organization(id: number): PipedriveOrg {
    const org = this.organizations.get(id);
    if (!org) throw failure(404, 'Organization not found');
    return org;
  }

  person(id: number): PipedrivePerson {
    const person = this.persons.get(id);
    if (!person) throw failure(404, 'Person not found');
    return person;
  }

  /** A referenced organization that must exist (a 400, not a 404, when it does not). */
  referencedOrg(raw: unknown): number | null {
    const id = idFrom(raw, 'org_id');
    if (id !== null && !this.organizations.has(id)) throw invalid('Organization not found');
    return id;
  }

  /** The searchable custom field values of an organization, as text. */
  customTexts(org: PipedriveOrg): string[] {
    return this.customFields()
      .filter((field) => SEARCHABLE_TYPES.has(field.field_type))
      .flatMap((field) => {
        const value = org[field.key];
        return value === null || value === undefined || value === '' ? [] : [String(value)];
      });
  }

  /** Note contents by the organization or person they are attached to. */
  noteTexts(by: 'org_id' | 'person_id'): Map<number, string[]> {
    const texts = new Map<number, string[]>();
    for (const note of this.notes.values()) {
      const id = note[by];
      if (id === null) continue;
      const list = texts.get(id);
      if (list) list.push(note.content);
      else texts.set(id, [note.content]);
    }
    return texts;
  }
}

function ownerOf(id: number) {
  return { ...OWNER, id, has_pic: 0, pic_hash: null, active_flag: true, value: id };
}

/** An organization as the API answers it: the owner expanded, every custom key present. */
function orgView(account: Account, org: PipedriveOrg) {
  const custom = Object.fromEntries(account.customFields().map((field) => [field.key, null]));
  return {
    company_id: 1,
    active_flag: true,
    cc_email: 'standin@pipedrivemail.com',
    ...custom,
    ...org,
    owner_id: ownerOf(org.owner_id),
  };
}

function personView(account: Account, person: PipedrivePerson) {
  const org = person.org_id === null ? undefined : account.organizations.get(person.org_id);
  const [first_name = '', ...rest] = person.name.split(' ');
  return {
    company_id: 1,
    active_flag: true,
    ...person,
    first_name,
    last_name: rest.join(' '),
    primary_email: person.email.find((email) => email.primary)?.value ?? null,
    owner_id: ownerOf(person.owner_id),
    org_id: org
      ? {
          value: org.id,
          name: org.name,
          address: org.address,
          owner_id: org.owner_id,
          active_flag: true,
        }
      : null,
    org_name: org?.name ?? null,
  };
}

function noteView(account: Account, note: PipedriveNote) {
  const org = note.org_id === null ? undefined : account.organizations.get(note.org_id);
  const person = note.person_id === null ? undefined : account.persons.get(note.person_id);
  return {
    ...note,
    lead_id: null,
    active_flag: true,
    pinned_to_deal_flag: false,
    pinned_to_person_flag: false,
    pinned_to_organization_flag: false,
    organization: org ? { name: org.name } : null,
    person: person ? { name: person.name } : null,
    deal: null,
    user: { email: OWNER.email, name: OWNER.name, icon_url: null, is_you: true },
  };
}

function bodyOf(call: Incoming): Record<string, unknown> {
  const body = asRecord(call.body);
  if (!body) throw invalid('The request body must be a JSON object.');
  return body;
}

/** An optional creation time in Pipedrive's format; now when not given. */
function addTime(raw: unknown): string {
  if (raw === undefined || raw === null) return pipedriveNow();
  if (typeof raw !== 'string' || !PIPEDRIVE_TIME.test(raw)) {
    throw invalid('add_time must be given as YYYY-MM-DD HH:MM:SS.');
  }
  return raw;
}

/**
 * What a create or update writes to an organization: its own fields that are given, and
 * the custom fields this account has (unknown keys are ignored, as Pipedrive does).
 */
function orgChanges(account: Account, body: Record<string, unknown>, creating: boolean) {
  const changes: Partial<PipedriveOrg> = {};
  if (creating || 'name' in body) {
    if (typeof body.name !== 'string' || body.name.trim() === '') {
      throw invalid('Organization name must be given.');
    }
    changes.name = body.name;
  }
  if ('address' in body) changes.address = body.address === null ? null : String(body.address);
  if ('owner_id' in body) changes.owner_id = idFrom(body.owner_id, 'owner_id') ?? 1;
  if ('label' in body) changes.label = idFrom(body.label, 'label');
  if ('visible_to' in body) changes.visible_to = String(body.visible_to);
  if (creating) changes.add_time = addTime(body.add_time);
  for (const field of account.customFields()) {
    if (field.key in body) changes[field.key] = body[field.key] ?? null;
  }
  return changes;
}

type Route = {
  method: string;
  pattern: RegExp;
  search?: boolean;
  run(account: Account, params: string[], call: Incoming): Reply;
};

const ROUTES: Route[] = [
  { method: 'GET', pattern: /^\/v1\/users\/me$/, run: usersMe },
  { method: 'GET', pattern: /^\/v1\/organizationFields$/, run: listFields },
  { method: 'POST', pattern: /^\/v1\/organizationFields$/, run: addField },
  {
    method: 'GET',
    pattern: /^\/v1\/organizations\/search$/,
    search: true,
    run: searchOrganizations,
  },
  { method: 'POST', pattern: /^\/v1\/organizations$/, run: addOrganization },
  { method: 'GET', pattern: /^\/v1\/organizations\/(\d+)$/, run: getOrganization },
  { method: 'PUT', pattern: /^\/v1\/organizations\/(\d+)$/, run: updateOrganization },
  { method: 'GET', pattern: /^\/v1\/persons\/search$/, search: true, run: searchPersons },
  { method: 'POST', pattern: /^\/v1\/persons$/, run: addPerson },
  { method: 'GET', pattern: /^\/v1\/persons\/(\d+)$/, run: getPerson },
  { method: 'PUT', pattern: /^\/v1\/persons\/(\d+)$/, run: updatePerson },
  { method: 'POST', pattern: /^\/v1\/notes$/, run: addNote },
];

function usersMe(): Reply {
  return ok({
    ...OWNER,
    company_id: 1,
    company_name: 'Stand-in',
    company_domain: 'standin',
    active_flag: true,
    is_admin: 1,
    timezone_name: 'UTC',
  });
}

function listFields(account: Account, _: string[], call: Incoming): Reply {
  const { page, pagination } = paginate(account.organizationFields, call.query);
  return ok(page, 200, { pagination });
}

/** POST /organizationFields: a custom field under a random 40-hex key (names may repeat). */
function addField(account: Account, _: string[], call: Incoming): Reply {
  const body = bodyOf(call);
  const { name, field_type } = body;
  if (typeof name !== 'string' || name.trim() === '') throw invalid('Field name must be given.');
  if (typeof field_type !== 'string' || !FIELD_TYPES.has(field_type)) {
    throw invalid(`field_type must be one of: ${[...FIELD_TYPES].join(', ')}.`);
  }
  const options = Array.isArray(body.options) ? body.options : undefined;
  if ((field_type === 'enum' || field_type === 'set') && !options?.length) {
    throw invalid('Options must be given for enum and set fields.');
  }
  const now = pipedriveNow();
  const field: PipedriveField = {
    id: account.organizationFields.length + 1,
    key: randomBytes(20).toString('hex'),
    name,
    field_type,
    edit_flag: true,
    order_nr: account.organizationFields.length,
    add_time: now,
    update_time: now,
    active_flag: true,
    mandatory_flag: false,
    ...(options
      ? {
          options: options.map((option: unknown, index) => ({
            id: index + 1,
            label: String(asRecord(option)?.label ?? ''),
          })),
        }
      : {}),
  };
  account.organizationFields.push(field);
  return ok(field, 201);
}

/** Search items best first (then by id), paged. */
function searchAnswer<T extends { id: number }>(
  scored: { score: number; item: T }[],
  query: Record<string, string>,
) {
  const hits = scored
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.item.id - b.item.id);
  const { page, pagination } = paginate(hits, query);
  const items = page.map((hit) => ({ result_score: hit.score, item: hit.item }));
  return ok({ items }, 200, { pagination });
}

function searchOrganizations(account: Account, _: string[], call: Incoming): Reply {
  const search = searchRequest(call.query, ORGANIZATION_SEARCH_FIELDS);
  const notes = search.fields.has('notes')
    ? account.noteTexts('org_id')
    : new Map<number, string[]>();
  const scored = [...account.organizations.values()].map((org) => {
    const custom = account.customTexts(org);
    const values = [
      ...(search.fields.has('name') ? [org.name] : []),
      ...(search.fields.has('address') ? [org.address] : []),
      ...(search.fields.has('custom_fields') ? custom : []),
      ...(notes.get(org.id) ?? []),
    ];
    const item = {
      id: org.id,
      type: 'organization',
      name: org.name,
      address: org.address,
      visible_to: Number(org.visible_to),
      owner: { id: org.owner_id },
      custom_fields: custom,
      notes: [],
    };
    return { score: score(values, search), item };
  });
  return searchAnswer(scored, call.query);
}

function addOrganization(account: Account, _: string[], call: Incoming): Reply {
  const changes = orgChanges(account, bodyOf(call), true);
  const org: PipedriveOrg = {
    id: account.newId(),
    name: '',
    address: null,
    owner_id: 1,
    label: null,
    visible_to: '3',
    add_time: '',
    ...changes,
    update_time: pipedriveNow(),
  };
  account.organizations.set(org.id, org);
  return ok(orgView(account, org), 201);
}

function getOrganization(account: Account, [id = '']: string[]): Reply {
  return ok(orgView(account, account.organization(Number(id))));
}

function updateOrganization(account: Account, [id = '']: string[], call: Incoming): Reply {
  const org = account.organization(Number(id));
  Object.assign(org, orgChanges(account, bodyOf(call), false), { update_time: pipedriveNow() });
  return ok(orgView(account, org));
}

function searchPersons(account: Account, _: string[], call: Incoming): Reply {
  const search = searchRequest(call.query, PERSON_SEARCH_FIELDS);
  const notes = search.fields.has('notes')
    ? account.noteTexts('person_id')
    : new Map<number, string[]>();
  const scored = [...account.persons.values()].map((person) => {
    const emails = person.email.map((email) => email.value);
    const phones = person.phone.map((phone) => phone.value);
    const values = [
      ...(search.fields.has('name') ? [person.name] : []),
      ...(search.fields.has('email') ? emails : []),
      ...(search.fields.has('phone') ? phones : []),
      ...(notes.get(person.id) ?? []),
    ];
    const org = person.org_id === null ? undefined : account.organizations.get(person.org_id);
    const item = {
      id: person.id,
      type: 'person',
      name: person.name,
      phones,
      emails,
      visible_to: Number(person.visible_to),
      owner: { id: person.owner_id },
      organization: org ? { id: org.id, name: org.name, address: org.address } : null,
      custom_fields: [],
      notes: [],
    };
    return { score: score(values, search), item };
  });
  return searchAnswer(scored, call.query);
}

function addPerson(account: Account, _: string[], call: Incoming): Reply {
  const body = bodyOf(call);
  if (typeof body.name !== 'string' || body.name.trim() === '')
    throw invalid('Person name must be given.');
  const person: PipedrivePerson = {
    id: account.newId(),
    name: body.name,
    email: contactPoints(body.email, 'email'),
    phone: contactPoints(body.phone, 'phone'),
    org_id: account.referencedOrg(body.org_id),
    owner_id: idFrom(body.owner_id, 'owner_id') ?? 1,
    visible_to: body.visible_to === undefined ? '3' : String(body.visible_to),
    add_time: addTime(body.add_time),
    update_time: pipedriveNow(),
  };
  account.persons.set(person.id, person);
  return ok(personView(account, person), 201);
}

function getPerson(account: Account, [id = '']: string[]): Reply {
  return ok(personView(account, account.person(Number(id))));
}

function updatePerson(account: Account, [id = '']: string[], call: Incoming): Reply {
  const person = account.person(Number(id));
  const body = bodyOf(call);
  const changes: Partial<PipedrivePerson> = {};
  if ('name' in body) {
    if (typeof body.name !== 'string' || body.name.trim() === '')
      throw invalid('Person name must be given.');
    changes.name = body.name;
  }
  if ('email' in body) changes.email = contactPoints(body.email, 'email');
  if ('phone' in body) changes.phone = contactPoints(body.phone, 'phone');
  if ('org_id' in body) changes.org_id = account.referencedOrg(body.org_id);
  Object.assign(person, changes, { update_time: pipedriveNow() });
  return ok(personView(account, person));
}

/** POST /notes: HTML content attached to an existing organization or person (no deals here). */
function addNote(account: Account, _: string[], call: Incoming): Reply {
  const body = bodyOf(call);
  if (typeof body.content !== 'string' || body.content.trim() === '') {
    throw invalid('Note content must be given.');
  }
  const org_id = account.referencedOrg(body.org_id);
  const person_id = idFrom(body.person_id, 'person_id');
  const deal_id = idFrom(body.deal_id, 'deal_id');
  if (org_id === null && person_id === null && deal_id === null) {
    throw invalid('Note must be attached to a deal, person, organization or lead.');
  }
  if (person_id !== null && !account.persons.has(person_id)) throw invalid('Person not found');
  if (deal_id !== null) throw invalid('Deal not found');
  const note: PipedriveNote = {
    id: account.newId(),
    content: body.content,
    org_id,
    person_id,
    deal_id,
    user_id: OWNER.id,
    add_time: addTime(body.add_time),
    update_time: pipedriveNow(),
  };
  account.notes.set(note.id, note);
  return ok(noteView(account, note), 201);
}

function findRoute(call: Incoming): { route: Route; params: string[] } | null {
  for (const route of ROUTES) {
    const match = route.method === call.method ? route.pattern.exec(call.path) : null;
    if (match) return { route, params: match.slice(1) };
  }
  return null;
}

/**
 * Pipedrive's API v1 (users/me, organizationFields, organizations, persons, notes and their
 * search endpoints) as an api_token sees it, on loopback: in-memory records, the vendor's
 * `{success, data, additional_data}` shapes and errors, and its documented burst limits for
 * the lowest plan (20 calls per rolling 2 s; the search endpoints 10 per 2 s, counting
 * against both). It records every call, and can revoke the token or throttle on request.
 */
export async function startPipedriveStandIn(
  options: PipedriveStandInOptions = {},
): Promise<PipedriveStandIn> {
  const account = new Account();
  const token = options.token ?? '0123456789abcdef0123456789abcdef01234567';
  const limits =
    options.limits === false ? null : { requestsPer2s: 20, searchPer2s: 10, ...options.limits };
  const requests = limits && new RollingWindow(limits.requestsPer2s, 2_000);
  const searches = limits && new RollingWindow(limits.searchPer2s, 2_000);
  const throttle = new Throttle();
  let revoked = false;

  /** x-ratelimit-* for the window this call falls in (the search one for searches). */
  const limitHeaders = (
    window: RollingWindow | null,
    now: number,
    reset?: number,
  ): Record<string, string> =>
    window
      ? {
          'x-ratelimit-limit': String(window.max),
          'x-ratelimit-remaining': String(window.remaining(now)),
          'x-ratelimit-reset': String(reset ?? window.secondsUntilFree(now)),
        }
      : {};
  const overLimit = (window: RollingWindow, now: number) => {
    const seconds = window.secondsUntilFree(now);
    state.overLimit++;
    return new Refusal({
      status: 429,
      headers: { ...limitHeaders(window, now, seconds), 'retry-after': String(seconds) },
      body: { success: false, error: 'Request over limit', errorCode: 429, error_info: ERROR_INFO },
    });
  };

  /** Counts the call against the windows it falls in, or refuses it (overLimit). */
  const admit = (search: boolean, now: number) => {
    if (!requests || !searches) return;
    if (requests.isFull(now)) throw overLimit(requests, now);
    if (search && searches.isFull(now)) throw overLimit(searches, now);
    requests.take(now);
    if (search) searches.take(now);
  };

  const authorised = (call: Incoming) =>
    !revoked && (call.headers['x-api-token'] === token || call.query.api_token === token);

  const answer = (call: Incoming): Reply => {
    const now = Date.now();
    const found = findRoute(call);
    const window = found?.route.search ? searches : requests;
    try {
      const throttled = throttle.take();
      if (throttled) {
        throw new Refusal({
          status: 429,
          headers: {
            'x-ratelimit-limit': String(window?.max ?? 20),
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': String(throttled.seconds),
            ...throttled.retryAfter,
          },
          body: {
            success: false,
            error: 'Request over limit',
            errorCode: 429,
            error_info: ERROR_INFO,
          },
        });
      }
      if (!authorised(call)) {
        throw new Refusal({
          status: 401,
          body: {
            success: false,
            error: 'unauthorized access',
            errorCode: 401,
            error_info: ERROR_INFO,
          },
        });
      }
      admit(found?.route.search === true, now);
      if (call.unparsable) throw invalid('Invalid JSON in the request body.');
      if (!found) throw failure(404, 'Unknown method .');
      const reply = found.route.run(account, found.params, call);
      return { ...reply, headers: limitHeaders(window, now) };
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const { reply } = error;
      return { ...reply, headers: { ...limitHeaders(window, now), ...reply.headers } };
    }
  };

  const calls: RecordedCall[] = [];
  const server = await serveStandIn(answer, calls, () => state.latencyMs);
  const state: PipedriveStandIn = {
    url: server.url,
    token,
    calls,
    organizations: account.organizations,
    persons: account.persons,
    notes: account.notes,
    organizationFields: account.organizationFields,
    overLimit: 0,
    latencyMs: options.latencyMs ?? 0,
    revoke: () => {
      revoked = true;
    },
    throttleNext: (n, retryAfterSeconds, throttleOptions) =>
      throttle.set(n, retryAfterSeconds, throttleOptions),
    organizationsByField: (key) => {
      const byValue = new Map<string, PipedriveOrg[]>();
      for (const org of account.organizations.values()) {
        const value = org[key];
        if (value === null || value === undefined || value === '') continue;
        const text = String(value).toLowerCase();
        const same = byValue.get(text);
        if (same) same.push(org);
        else byValue.set(text, [org]);
      }
      return byValue;
    },
    notesOf: (orgId) => [...account.notes.values()].filter((note) => note.org_id === Number(orgId)),
    personsOf: (orgId) =>
      [...account.persons.values()].filter((person) => person.org_id === Number(orgId)),
    close: server.close,
  };
  return state;
}
