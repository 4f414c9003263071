import ipaddr from 'ipaddr.js';
import { getDomain } from 'tldts';
import { businessDomain } from '../identify/identity.js';
import type { NetworkKind } from '../identify/network-owner.js';
import {
  isProviderDomain,
  isRegistryDomain,
  legalForm,
  nameKey,
  personWord,
  plainText,
  recordWord,
  sameName,
} from './names.js';
import type { RdapAutnum, RdapEntity, RdapNetwork } from './rdap.js';
import type { Signal } from './signals.js';

/** What the caller knows about the network that holds the address. */
export interface RegistrationContext {
  /** The network owner's AS name. */
  asnName?: string | null;
  /** The network owner's kind, when judged: a business's own AS is not a provider. */
  networkKind?: NetworkKind | null;
  /** Registrable domains of the provider: the network owner's domain, its autnum domain. */
  providerDomains?: string[];
  /** The less specific network's record (parentOf), when the caller fetched it. */
  parent?: RdapNetwork | null;
}

/** Who holds a network, as its record says. */
interface Holder {
  handles: string[];
  name: string | null;
  /** The first description line, which may name someone else than the registrant. */
  description: string | null;
  /** jCard kind of the registrant (`org`, `individual`, …). */
  kind: string | null;
  /** The registrant's own e-mail domains (registrable, any kind). */
  ownDomains: string[];
  /** E-mail addresses of the registrant and its contacts, registrant first. */
  emails: string[];
  /** E-mail addresses of abuse contacts (often the provider's or an outside service's). */
  abuseEmails: string[];
}

const ALLOCATION = /ALLOCAT|LIR-PARTITIONED|AGGREGATED/i;
// "Max Mustermann", "MAX MUSTERMANN", "Anna Maria Rossi-Bianchi": two to four words of letters.
const PERSON_LIKE = /^(?:\p{Lu}\p{Ll}+|\p{Lu}{2,})(?:[ -](?:\p{Lu}\p{Ll}+|\p{Lu}{2,})){1,3}$/u;
const ROLE_ORDER = ['registrant', 'administrative', 'technical'];

/**
 * The registration signal of contract §16: the RDAP record of the most specific network
 * holding the address. A private person's record is `person` (and evidence names no one); a
 * pool, the provider's infrastructure or allocation, or a network whose holder is the provider
 * (the parent's holder or the network owner) is `provider`; a business customer's network
 * names the business, with its domain from its own or its contacts' e-mail addresses (not the
 * provider's, a registry's or free-mail). A business without a usable domain, or a name that
 * does not read as a business, is `weak`.
 *
 * Judge once without `parent`; when that names someone, fetch `parentOf(record)` and judge
 * again with it: the parent can only show the holder to be the provider.
 */
export function registrationSignal(record: RdapNetwork, context: RegistrationContext = {}): Signal {
  const holder = holderOf(record);
  const label = record.name ?? record.handle ?? '';
  const value = holder.name && holder.name !== label ? `${label} (${holder.name})` : label;
  const signal = (verdict: Signal['verdict'], more: Partial<Signal> = {}): Signal => ({
    signal: 'registration',
    value: verdict === 'person' ? 'private person' : value,
    verdict,
    ...more,
  });
  if (isPerson(holder)) return signal('person');
  if (isProviders(record, holder, context)) return signal('provider');
  if (!holder.name) return signal('none');
  const domain = customerDomain(holder, context);
  const business = holder.kind === 'org' || legalForm(holder.name) !== null;
  if (business && domain) return signal('organisation', { domain, name: holder.name });
  return signal('weak', domain ? { domain, name: holder.name } : { name: holder.name });
}

function holderOf(record: RdapNetwork | RdapAutnum): Holder {
  const all = flatten(record.entities);
  const registrant = all.find(
    (entity) => entity.roles.includes('registrant') && (entity.fn || entity.org),
  );
  const description = record.remarks
    .filter((remark) => !remark.title || /^desc/i.test(remark.title))
    .flatMap((remark) => remark.description)[0];
  const isAbuse = (entity: RdapEntity) =>
    entity.roles.includes('abuse') && !entity.roles.some((role) => ROLE_ORDER.includes(role));
  const rank = (entity: RdapEntity) => {
    const found = ROLE_ORDER.findIndex((role) => entity.roles.includes(role));
    return found < 0 ? ROLE_ORDER.length : found;
  };
  const contacts = all.filter((entity) => !isAbuse(entity)).sort((a, b) => rank(a) - rank(b));
  return {
    handles: all
      .filter((entity) => entity.roles.includes('registrant') && (entity.fn || entity.org))
      .flatMap((entity) => (entity.handle ? [entity.handle.toUpperCase()] : [])),
    name: registrant?.org ?? registrant?.fn ?? description ?? null,
    description: description ?? null,
    kind: registrant?.kind ?? null,
    ownDomains: (registrant?.emails ?? []).flatMap(emailDomain),
    emails: contacts.flatMap((entity) => entity.emails),
    abuseEmails: all.filter(isAbuse).flatMap((entity) => entity.emails),
  };
}

/** Entities and the contacts inside them (ARIN nests an organisation's contacts in it). */
function flatten(entities: RdapEntity[]): RdapEntity[] {
  return entities.flatMap((entity) => [entity, ...flatten(entity.entities)]);
}

/**
 * A private person: an individual's jCard, a registry's word for one, or a person's name
 * without any mark of a business, as the holder or in the description (providers often
 * register their own organisation on a customer's line and name the customer there).
 */
function isPerson(holder: Holder): boolean {
  if (holder.kind === 'individual') return true;
  const personal = (name: string | null, orgKind: boolean) => {
    if (!name) return false;
    if (personWord(name)) return true;
    if (orgKind || legalForm(name) || recordWord(name)) return false;
    return PERSON_LIKE.test(name.trim());
  };
  return personal(holder.name, holder.kind === 'org') || personal(holder.description, false);
}

/** A provider's network: its words, an allocation, or held by the provider itself. */
function isProviders(record: RdapNetwork, holder: Holder, context: RegistrationContext): boolean {
  const described = [
    record.name ?? '',
    holder.name ?? '',
    ...record.remarks.flatMap((remark) => [remark.title ?? '', ...remark.description]),
  ];
  if (described.some((text) => recordWord(text))) return true;
  if (record.type && ALLOCATION.test(record.type)) return true;
  const parent = context.parent ? holderOf(context.parent) : null;
  if (parent && sameHolder(holder, parent)) return true;
  if (context.networkKind !== 'business' && context.asnName && holder.name) {
    if (similarNames(holder.name, context.asnName)) return true;
  }
  const providerDomains = [...(context.providerDomains ?? []), ...(parent?.ownDomains ?? [])];
  return holder.ownDomains.some(
    (domain) => providerDomains.includes(domain) || isProviderDomain(domain),
  );
}

function sameHolder(holder: Holder, parent: Holder): boolean {
  if (holder.handles.some((handle) => parent.handles.includes(handle))) return true;
  if (holder.name && parent.name && sameName(holder.name, parent.name)) return true;
  return holder.ownDomains.some((domain) => parent.ownDomains.includes(domain));
}

/** Equal names, or one holding the other ("Vodafone GmbH" in "VODAFONE-DE Vodafone GmbH"). */
function similarNames(a: string, b: string): boolean {
  const [left, right] = [nameKey(a), nameKey(b)];
  if (left.length < 2 || right.length < 2) return false;
  if (left === right) return true;
  const [short, long] = left.length < right.length ? [left, right] : [right, left];
  return short.length >= 5 && long.includes(short);
}

/**
 * The customer's domain: the first e-mail domain of the registrant or its contacts that is a
 * business's and not the provider's. Abuse contacts are left out: in a customer's record they
 * are mostly the provider's, inherited from the allocation.
 */
function customerDomain(holder: Holder, context: RegistrationContext): string | null {
  const parent = context.parent ? holderOf(context.parent) : null;
  const providers = new Set([
    ...(context.providerDomains ?? []),
    ...(parent ? [...parent.emails, ...parent.abuseEmails].flatMap(emailDomain) : []),
  ]);
  for (const email of holder.emails) {
    const domain = businessDomain(email);
    if (!domain || providers.has(domain) || isRegistryDomain(domain)) continue;
    if (isProviderDomain(domain)) continue;
    // A contact at a domain named like the network's own provider is the provider's.
    if (context.asnName && context.networkKind !== 'business') {
      if (similarNames(plainText(domain.split('.')[0] ?? ''), context.asnName)) continue;
    }
    return domain;
  }
  return null;
}

const emailDomain = (email: string): string[] => {
  const domain = getDomain(email.slice(email.lastIndexOf('@') + 1).toLowerCase());
  return domain ? [domain] : [];
};

/**
 * Which record to fetch as the parent: the `up` link, else the covering prefix one bit
 * shorter than the network, asked of the same registry (the registry answers with the most
 * specific network holding it, which is the parent or above). `handle` is the parent's
 * handle when the record names it. Null for a network without addresses.
 */
export function parentOf(record: RdapNetwork): { url: string; handle: string | null } | null {
  const handle = record.parentHandle;
  if (record.upUrl) return { url: record.upUrl, handle };
  const at = record.url.lastIndexOf('/ip/');
  if (at < 0) return null;
  const base = record.url.slice(0, at + 1);
  const covering = coveringPrefix(record);
  return covering ? { url: `${base}ip/${covering}`, handle } : null;
}

/** The smallest prefix strictly holding the network: `prefix/length`. */
function coveringPrefix(record: RdapNetwork): string | null {
  const { startAddress: start, endAddress: end } = record;
  const [cidr] = record.cidrs;
  if (cidr && ipaddr.isValidCIDR(cidr)) {
    const [network, length] = ipaddr.parseCIDR(cidr);
    if (length === 0) return null;
    return `${maskTo(network, length - 1)}/${length - 1}`;
  }
  if (!start || !end || !ipaddr.isValid(start) || !ipaddr.isValid(end)) return null;
  const first = ipaddr.parse(start);
  const last = ipaddr.parse(end);
  if (first.kind() !== last.kind()) return null;
  const bits = first.kind() === 'ipv4' ? 32 : 128;
  const a = toBigInt(first);
  const b = toBigInt(last);
  let length = bits;
  while (length > 0 && a >> BigInt(bits - length) !== b >> BigInt(bits - length)) length--;
  const size = 1n << BigInt(bits - length);
  const exact = a % size === 0n && b - a + 1n === size;
  const wanted = exact ? length - 1 : length;
  return wanted < 0 ? null : `${maskTo(first, wanted)}/${wanted}`;
}

function toBigInt(address: ipaddr.IPv4 | ipaddr.IPv6): bigint {
  return address.toByteArray().reduce((sum, byte) => (sum << 8n) | BigInt(byte), 0n);
}

function maskTo(address: ipaddr.IPv4 | ipaddr.IPv6, length: number): string {
  const bytes = address.toByteArray().map((byte, index) => {
    const keep = Math.max(0, Math.min(8, length - index * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  return ipaddr.fromByteArray(bytes).toString();
}

/**
 * The network owner's common name and domain from its autnum record: the registrant's name,
 * and the first business e-mail domain of the registrant, its administrative and technical
 * contacts, then others; abuse contacts last (they are often outsourced). Registry and
 * free-mail domains are skipped.
 */
export function autnumDomain(autnum: RdapAutnum): { domain: string | null; name: string | null } {
  const holder = holderOf(autnum);
  const domain =
    [...holder.emails, ...holder.abuseEmails]
      .map(businessDomain)
      .find((found): found is string => found !== null && !isRegistryDomain(found)) ?? null;
  return { domain, name: holder.kind === 'individual' ? null : (holder.name ?? autnum.name) };
}
