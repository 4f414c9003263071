import type { Document, Element } from 'domhandler';
import { findAll, getAttributeValue, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import type { Address, SocialProfile } from '../db/schema.js';
import {
  isNode,
  jsonLdNodes,
  type Node,
  referenceResolver,
  siteOrganisation,
  textOf,
} from './json-ld.js';
import { postalAddress } from './postal-address.js';
import { distinctProfiles } from './social-profiles.js';

/** What a homepage says about its company; "" (or empty) where it says nothing. */
export interface SiteProfile {
  name: string;
  logo: string;
  description: string;
  phone: string;
  email: string;
  founded: string;
  size: string;
  address: Partial<Address>;
  profiles: SocialProfile[];
}

const MAX_NAME = 200;
const MAX_DESCRIPTION = 1000;
const MAX_URL = 2000;
// A page is untrusted input: this many links and icons are looked at, no more.
const MAX_LINKS = 3000;
const MAX_ICONS = 50;

/** The parts of a page the profile is read from, gathered in one walk of its elements. */
interface Page {
  title: string;
  meta: Map<string, string>;
  icons: Element[];
  hrefs: string[];
  jsonLd: string[];
}

/**
 * Reads a company profile from its homepage's HTML (`pageUrl` is where it was read, for
 * relative links; `domain` its registrable domain): schema.org JSON-LD first, then
 * OpenGraph, icons and the title. Never throws on what a page contains.
 */
export function parseSiteProfile(html: string, pageUrl: string, domain: string): SiteProfile {
  const page = readPage(parseDocument(html));
  const nodes = jsonLdNodes(page.jsonLd);
  const resolve = referenceResolver(nodes);
  const org: Node = siteOrganisation(nodes, domain) ?? {};
  const contacts = [org.contactPoint].flat().map(resolve).filter(isNode);
  const location = resolve(org.location);
  const place = isNode(location) ? location : {};
  return {
    name: cap(
      plain(textOf(org.name)) ||
        plain(textOf(org.legalName)) ||
        page.meta.get('og:site_name') ||
        nameFromTitle(page.title, domain),
      MAX_NAME,
    ),
    logo: logoOf(resolve(org.logo), pageUrl) || largestIcon(page.icons, pageUrl),
    description: cap(
      plain(textOf(org.description)) ||
        page.meta.get('og:description') ||
        page.meta.get('description') ||
        '',
      MAX_DESCRIPTION,
    ),
    phone: cap(
      [org.telephone, ...contacts.map((c) => c.telephone)]
        .map((value) => textOf(value).replace(/^tel:/i, ''))
        .find(Boolean) ?? '',
      50,
    ),
    email: [org.email, ...contacts.map((c) => c.email)].map(emailOf).find(Boolean) ?? '',
    founded: yearOf(org.foundingDate),
    size: sizeOf(resolve(org.numberOfEmployees)),
    address: postalAddress(resolve(org.address ?? place.address), resolve(org.geo ?? place.geo)),
    profiles: distinctProfiles([
      ...[org.sameAs].flat().map(textOf),
      ...page.hrefs.map((href) => absolute(href, pageUrl)),
    ]),
  };
}

const WANTED = new Set(['title', 'meta', 'link', 'a', 'script']);

function readPage(document: Document): Page {
  const page: Page = { title: '', meta: new Map(), icons: [], hrefs: [], jsonLd: [] };
  for (const element of findAll((node) => WANTED.has(node.name), document.children)) {
    const attribute = (name: string) => getAttributeValue(element, name)?.trim() ?? '';
    switch (element.name) {
      case 'title':
        if (!page.title && !inside(element, 'svg')) page.title = plain(textContent(element));
        break;
      case 'meta': {
        const key = (attribute('property') || attribute('name')).toLowerCase();
        const content = plain(attribute('content'));
        if (key && content && !page.meta.has(key)) page.meta.set(key, content);
        break;
      }
      case 'link':
        if (page.icons.length < MAX_ICONS && iconRel(attribute('rel'))) page.icons.push(element);
        break;
      case 'a':
        if (page.hrefs.length < MAX_LINKS && attribute('href')) page.hrefs.push(attribute('href'));
        break;
      case 'script':
        if (attribute('type').toLowerCase() === 'application/ld+json')
          page.jsonLd.push(textContent(element));
        break;
    }
  }
  return page;
}

function inside(element: Element, name: string): boolean {
  for (let parent = element.parent; parent; parent = parent.parent) {
    if ((parent as Element).name === name) return true;
  }
  return false;
}

/** Text with its entities decoded and any markup dropped, on one line. */
function plain(text: string): string {
  const decoded = /[<&]/.test(text) ? textContent(parseDocument(text)) : text;
  return decoded.replace(/\s+/g, ' ').trim();
}

const cap = (text: string, max: number) => (text.length > max ? text.slice(0, max).trim() : text);

/** An absolute http(s) URL for `href` on the page at `base`; "" for anything else. */
function absolute(href: string, base: string): string {
  if (!href.trim()) return '';
  try {
    const url = new URL(href.trim(), base);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.href.length <= MAX_URL
      ? url.href
      : '';
  } catch {
    return '';
  }
}

/** schema.org `logo`: a URL, or an ImageObject's `url`/`contentUrl`. */
function logoOf(value: unknown, base: string): string {
  if (typeof value === 'string') return absolute(value, base);
  if (!isNode(value)) return '';
  return absolute(textOf(value.url) || textOf(value.contentUrl), base);
}

const ICON_RELS = ['icon', 'apple-touch-icon', 'apple-touch-icon-precomposed'];
const iconRel = (rel: string) =>
  rel
    .toLowerCase()
    .split(/\s+/)
    .some((token) => ICON_RELS.includes(token));

/**
 * The largest icon the page declares, by its `sizes` (`any`, an SVG, counts as large);
 * undeclared sizes are what browsers assume (180 for apple-touch-icon, 16 otherwise).
 */
function largestIcon(icons: Element[], base: string): string {
  let best = '';
  let bestSize = 0;
  for (const icon of icons) {
    const href = absolute(getAttributeValue(icon, 'href') ?? '', base);
    if (!href) continue;
    const size = iconSize(icon, href);
    if (size > bestSize) {
      best = href;
      bestSize = size;
    }
  }
  return best;
}

function iconSize(icon: Element, href: string): number {
  const sizes = (getAttributeValue(icon, 'sizes') ?? '').toLowerCase().split(/\s+/);
  if (sizes.includes('any')) return 512;
  const declared = sizes
    .map((size) => /^(\d+)x(\d+)$/.exec(size))
    .map((match) => (match ? Math.max(Number(match[1]), Number(match[2])) : 0));
  const largest = Math.max(0, ...declared);
  if (largest > 0) return largest;
  const type = getAttributeValue(icon, 'type') ?? '';
  if (type.includes('svg') || new URL(href).pathname.endsWith('.svg')) return 512;
  return (getAttributeValue(icon, 'rel') ?? '').toLowerCase().includes('apple-touch-icon')
    ? 180
    : 16;
}

/** Words a title carries beside the company's name that are not it. */
const GENERIC_TITLES = new Set([
  'home',
  'homepage',
  'home page',
  'start',
  'startseite',
  'accueil',
  'inicio',
  'página inicial',
  'welcome',
  'willkommen',
  'bienvenue',
  'benvenuti',
  'welkom',
  'official site',
  'official website',
]);
const letters = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * The company's name from a title such as `Home | Acme GmbH` or `Acme – Pumps since 1947`:
 * of the parts between separators that are not generic, the one that reads like the domain,
 * else the first.
 */
function nameFromTitle(title: string, domain: string): string {
  const parts = title
    .split(/\s+[|\-–—·•»/]\s+|\s*(?:\||::)\s*/)
    .map((part) => part.trim())
    .filter((part) => part && !GENERIC_TITLES.has(part.toLowerCase()));
  const label = letters(domain.split('.')[0] ?? '');
  const likeDomain = parts.find((part) => {
    const text = letters(part);
    return label.length > 1 && text.length > 1 && (text.includes(label) || label.includes(text));
  });
  return likeDomain ?? parts[0] ?? '';
}

function emailOf(value: unknown): string {
  const text = textOf(value)
    .replace(/^mailto:/i, '')
    .replace(/\?.*$/, '');
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) && text.length <= 254 ? text : '';
}

/** The year of `foundingDate` (`1947`, `1947-05-01`), when it is a plausible one. */
function yearOf(value: unknown): string {
  const year = Number(/(?:^|\D)(\d{4})(?:\D|$)/.exec(textOf(value))?.[1]);
  return year >= 1000 && year <= new Date().getUTCFullYear() ? String(year) : '';
}

/** The directory's size labels (LinkedIn's bands). */
const SIZE_BANDS: [number, string][] = [
  [10, '1-10'],
  [50, '11-50'],
  [200, '51-200'],
  [500, '201-500'],
  [1000, '501-1000'],
  [5000, '1001-5000'],
  [10000, '5001-10000'],
];

export function sizeLabel(employees: number): string {
  if (!Number.isFinite(employees) || employees < 1) return '';
  return SIZE_BANDS.find(([upTo]) => employees <= upTo)?.[1] ?? '10001+';
}

/**
 * `numberOfEmployees` as a size label: a number, a QuantitativeValue (`value`, or the middle
 * of `minValue`..`maxValue`), or text such as `250` or `201-500`.
 */
function sizeOf(value: unknown): string {
  const numberOf = (part: unknown) => {
    const digits = textOf(part).replace(/[,.\s]/g, '');
    return /^\d{1,9}$/.test(digits) ? Number(digits) : Number.NaN;
  };
  if (isNode(value)) {
    const exact = numberOf(value.value);
    if (Number.isFinite(exact)) return sizeLabel(exact);
    const known = [numberOf(value.minValue), numberOf(value.maxValue)].filter(Number.isFinite);
    return known.length ? sizeLabel(known.reduce((a, b) => a + b, 0) / known.length) : '';
  }
  const numbers =
    textOf(value)
      .match(/\d[\d,.]*/g)
      ?.slice(0, 2)
      .map(numberOf) ?? [];
  const known = numbers.filter(Number.isFinite);
  return known.length ? sizeLabel(known.reduce((a, b) => a + b, 0) / known.length) : '';
}
