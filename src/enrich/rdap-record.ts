// RDAP records (RFC 9083) as the registration judge reads them. The JSON is a registry's
// (or anyone's behind a redirect): every field is checked, anything odd is left out, and
// only an answer that is no RDAP object at all is an error.

/** Why an RDAP question got no record. `retryAfterMs` is set on 429: back off from `host`. */
export class RdapError extends Error {
  constructor(
    message: string,
    readonly host: string,
    readonly status: number | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

export interface RdapRemark {
  title: string | null;
  description: string[];
}

/** An entity (RFC 9083 §5.1) with what its jCard (RFC 7095) says. */
export interface RdapEntity {
  handle: string | null;
  roles: string[];
  /** jCard `kind`: `individual`, `org`, `group`, … */
  kind: string | null;
  fn: string | null;
  org: string | null;
  emails: string[];
  /** The postal address as one line. */
  address: string | null;
  entities: RdapEntity[];
}

export interface RdapNetwork {
  /** Where the record was read (after redirects). */
  url: string;
  handle: string | null;
  startAddress: string | null;
  endAddress: string | null;
  /** `cidr0_cidrs` as `prefix/length`. */
  cidrs: string[];
  name: string | null;
  type: string | null;
  parentHandle: string | null;
  country: string | null;
  remarks: RdapRemark[];
  /** The `up` link: the less specific network. */
  upUrl: string | null;
  entities: RdapEntity[];
}

export interface RdapAutnum {
  url: string;
  handle: string | null;
  name: string | null;
  startAutnum: number | null;
  endAutnum: number | null;
  country: string | null;
  remarks: RdapRemark[];
  entities: RdapEntity[];
}

type Json = Record<string, unknown>;

const MAX_ENTITIES = 64;
const MAX_DEPTH = 4;
const MAX_TEXT = 500;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() ? value.trim().slice(0, MAX_TEXT) : null;
const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(text).filter((item): item is string => item !== null) : [];
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function expect(body: unknown, objectClassName: string, host: string): Json {
  if (!isObject(body)) throw new RdapError('The answer is not an RDAP object.', host);
  const found = text(body.objectClassName);
  if (found !== null && found !== objectClassName) {
    throw new RdapError(`The answer is an RDAP ${found}, not an ${objectClassName}.`, host);
  }
  return body;
}

/** An `ip network` object; throws RdapError when the answer is none. */
export function readNetwork(body: unknown, url: string, host: string): RdapNetwork {
  const record = expect(body, 'ip network', host);
  return {
    url,
    handle: text(record.handle),
    startAddress: text(record.startAddress),
    endAddress: text(record.endAddress),
    cidrs: list(record.cidr0_cidrs).flatMap((cidr) => {
      if (!isObject(cidr)) return [];
      const prefix = text(cidr.v4prefix) ?? text(cidr.v6prefix);
      return prefix && typeof cidr.length === 'number' ? [`${prefix}/${cidr.length}`] : [];
    }),
    name: text(record.name),
    type: text(record.type),
    parentHandle: text(record.parentHandle),
    country: text(record.country),
    remarks: remarks(record.remarks),
    upUrl: upLink(record.links),
    entities: entities(record.entities, { left: MAX_ENTITIES }, 0),
  };
}

/** An `autnum` object; throws RdapError when the answer is none. */
export function readAutnum(body: unknown, url: string, host: string): RdapAutnum {
  const record = expect(body, 'autnum', host);
  const number = (value: unknown) => (typeof value === 'number' && value >= 0 ? value : null);
  return {
    url,
    handle: text(record.handle),
    name: text(record.name),
    startAutnum: number(record.startAutnum),
    endAutnum: number(record.endAutnum),
    country: text(record.country),
    remarks: remarks(record.remarks),
    entities: entities(record.entities, { left: MAX_ENTITIES }, 0),
  };
}

function remarks(value: unknown): RdapRemark[] {
  return list(value).flatMap((remark) =>
    isObject(remark)
      ? [{ title: text(remark.title), description: texts(remark.description).slice(0, 20) }]
      : [],
  );
}

function upLink(value: unknown): string | null {
  for (const link of list(value)) {
    if (isObject(link) && link.rel === 'up') return text(link.href);
  }
  return null;
}

/** Entities and the entities inside them, at most MAX_ENTITIES in all and MAX_DEPTH deep. */
function entities(value: unknown, budget: { left: number }, depth: number): RdapEntity[] {
  if (depth >= MAX_DEPTH) return [];
  const found: RdapEntity[] = [];
  for (const entity of list(value)) {
    if (!isObject(entity) || budget.left <= 0) continue;
    budget.left -= 1;
    found.push({
      handle: text(entity.handle),
      roles: texts(entity.roles).map((role) => role.toLowerCase()),
      ...jCard(entity.vcardArray),
      entities: entities(entity.entities, budget, depth + 1),
    });
  }
  return found;
}

type Card = Pick<RdapEntity, 'kind' | 'fn' | 'org' | 'emails' | 'address'>;

/** The jCard properties the judge reads: `["vcard", [[name, params, type, value…], …]]`. */
function jCard(value: unknown): Card {
  const card: Card = { kind: null, fn: null, org: null, emails: [], address: null };
  const [tag, properties] = list(value);
  if (tag !== 'vcard') return card;
  for (const property of list(properties)) {
    const [name, params, _type, ...values] = list(property);
    if (typeof name !== 'string') continue;
    const first = values[0];
    switch (name.toLowerCase()) {
      case 'kind':
        card.kind = text(first)?.toLowerCase() ?? card.kind;
        break;
      case 'fn':
        card.fn ??= text(first);
        break;
      case 'org':
        card.org ??= text(first) ?? texts(first)[0] ?? null;
        break;
      case 'email': {
        const email = text(first);
        if (email && card.emails.length < 10) card.emails.push(email);
        break;
      }
      case 'adr': {
        const label = isObject(params) ? text(params.label) : null;
        const parts = list(first).flatMap((part) =>
          Array.isArray(part) ? texts(part) : texts([part]),
        );
        card.address ??= label ?? (parts.length > 0 ? parts.join(', ') : null);
        break;
      }
    }
  }
  return card;
}
