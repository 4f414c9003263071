import { getDomain } from 'tldts';

/** A JSON-LD node: any JSON object of a page's `application/ld+json` blocks. */
export type Node = Record<string, unknown>;

// A page is untrusted input: this much of it is looked at, no more.
const MAX_BLOCKS = 20;
const MAX_BLOCK_CHARS = 500_000;
const MAX_NODES = 1_000;
const MAX_DEPTH = 12;
const MAX_ARRAY = 200;

/**
 * schema.org's Organization and the subtypes sites use for themselves; any other type whose
 * name ends in Organization or Business (LocalBusiness has some 150 subtypes) counts too.
 */
const ORGANISATION_TYPES = new Set([
  'Organization',
  'Corporation',
  'NGO',
  'Airline',
  'Consortium',
  'Cooperative',
  'CollegeOrUniversity',
  'School',
  'HighSchool',
  'MiddleSchool',
  'ElementarySchool',
  'Preschool',
  'FundingScheme',
  'LibrarySystem',
  'PerformingGroup',
  'PoliticalParty',
  'Project',
  'ResearchProject',
  'FundingAgency',
  'SportsTeam',
  'WorkersUnion',
  'Store',
  'OnlineStore',
  'Hospital',
  'Library',
  'Dentist',
  'Physician',
  'Restaurant',
  'Hotel',
  'ProfessionalService',
  'FinancialService',
  'LegalService',
  'EmploymentAgency',
  'TravelAgency',
  'RealEstateAgent',
  'InsuranceAgency',
  'AccountingService',
  'BankOrCreditUnion',
  'RadioStation',
  'TelevisionStation',
  'GovernmentOffice',
]);

export const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every node of the page's JSON-LD blocks, nested ones included; junk blocks are skipped. */
export function jsonLdNodes(blocks: string[]): Node[] {
  const nodes: Node[] = [];
  const visit = (value: unknown, depth: number) => {
    if (nodes.length >= MAX_NODES || depth > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      for (const item of value.slice(0, MAX_ARRAY)) visit(item, depth + 1);
      return;
    }
    if (!isNode(value)) return;
    nodes.push(value);
    for (const [key, child] of Object.entries(value)) {
      if (key !== '@context' && typeof child === 'object') visit(child, depth + 1);
    }
  };
  for (const block of blocks.slice(0, MAX_BLOCKS)) {
    if (block.length > MAX_BLOCK_CHARS) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(block);
    } catch {
      continue; // a page's broken JSON-LD is the page's problem, not a failed read
    }
    visit(parsed, 0);
  }
  return nodes;
}

/** `Organization` from `Organization`, `schema:Organization` or `https://schema.org/Organization`. */
const typeNames = (node: Node): string[] =>
  [node['@type']]
    .flat()
    .filter((type): type is string => typeof type === 'string')
    .map((type) => type.replace(/^.*[/:#]/, ''));

export const isOrganisation = (node: Node): boolean =>
  typeNames(node).some(
    (type) =>
      ORGANISATION_TYPES.has(type) || type.endsWith('Organization') || type.endsWith('Business'),
  );

/** Looks nodes up by `@id`, so `{"@id": "#org"}` references read as the node they name. */
export function referenceResolver(nodes: Node[]): (value: unknown) => unknown {
  const byId = new Map<string, Node>();
  for (const node of nodes) {
    const id = node['@id'];
    if (typeof id !== 'string') continue;
    // The node with most to say wins: references repeat the id with nothing else.
    const known = byId.get(id);
    if (!known || Object.keys(node).length > Object.keys(known).length) byId.set(id, node);
  }
  return (value) => {
    const first = Array.isArray(value) ? value[0] : value;
    if (isNode(first) && typeof first['@id'] === 'string' && Object.keys(first).length === 1) {
      return byId.get(first['@id']) ?? first;
    }
    return first;
  };
}

/**
 * The organisation the site says it is: of the organisation nodes, the one on the site's
 * own domain (its `url` or `@id`), or named as the publisher of the site, or else the first.
 */
export function siteOrganisation(nodes: Node[], domain: string): Node | null {
  const resolve = referenceResolver(nodes);
  const publishers = new Set(
    nodes
      .filter((node) => typeNames(node).some((type) => type === 'WebSite' || type === 'WebPage'))
      .map((node) => resolve(node.publisher))
      .filter(isNode),
  );
  let best: Node | null = null;
  let bestScore = -1;
  for (const node of nodes) {
    if (!isOrganisation(node)) continue;
    const score =
      (onDomain(node.url, domain) || onDomain(node['@id'], domain) ? 2 : 0) +
      (publishers.has(node) ? 1 : 0) +
      (node.name !== undefined || node.legalName !== undefined ? 1 : 0);
    if (score > bestScore) {
      best = node;
      bestScore = score;
    }
  }
  return best;
}

function onDomain(value: unknown, domain: string): boolean {
  if (typeof value !== 'string') return false;
  try {
    return getDomain(new URL(value).hostname) === domain;
  } catch {
    return false;
  }
}

/** A value as one line of text: strings, numbers, `{"@value": …}`, the first of a list. */
export function textOf(value: unknown): string {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'string') return first.replace(/\s+/g, ' ').trim();
  if (typeof first === 'number' && Number.isFinite(first)) return String(first);
  if (isNode(first) && '@value' in first) return textOf(first['@value']);
  return '';
}
