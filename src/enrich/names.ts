import { domainToUnicode } from 'node:url';
import { getDomain, getDomainWithoutSuffix } from 'tldts';
import rules from '../identify/lookup-rules.json' with { type: 'json' };

// How the online signals read names and words: lower case, accents and dots taken off, so
// that "ACME GmbH", "Acme-GmbH" and "acme.gmbh" read alike and word lists stay plain words.

/** Lower case, no accents, dots and apostrophes dropped, anything else not a letter or digit a space. */
export function plainText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ı/g, 'i')
    .replace(/[.'’]/g, '')
    .replace(/[^\p{L}\p{N}/]+/gu, ' ')
    .trim();
}

const words = (list: string[]): string[] => list.map(plainText).filter(Boolean);

/** A phrase list as one whole-word matcher over plainText. */
function phraseMatcher(list: string[]): (text: string) => string | null {
  const phrases = [...new Set(words(list))].sort((a, b) => b.length - a.length);
  const escaped = phrases.map((phrase) => phrase.replace(/[/\\^$*+?()[\]{}|]/g, '\\$&'));
  const pattern = new RegExp(`(?:^| )(${escaped.join('|')})(?= |$)`, 'u');
  return (text) => pattern.exec(plainText(text))?.[1] ?? null;
}

export const lookupRules = {
  poolWords: new Set(words(rules.pool_words.words)),
  accessWords: new Set(words(rules.access_words.words)),
  businessWords: new Set(words(rules.business_words.words)),
  gearWords: new Set(words(rules.gear_words.words)),
  providerDomains: new Set(rules.provider_domains.domains.map((domain) => domain.toLowerCase())),
  providerLabels: new Set(rules.provider_labels.labels),
  registryDomains: new Set(rules.registry_domains.domains),
};

/** The first record word (customer pool, end users, infrastructure, hosting) in a text, or null. */
export const recordWord = phraseMatcher(rules.record_words.words);

/** The first word a registry uses for a private person's registration, or null. */
export const personWord = phraseMatcher(rules.person_words.words);

/** The legal form a name carries (GmbH, Ltd, S.p.A., …), or null. */
export const legalForm = phraseMatcher(rules.legal_forms.forms);

const legalForms = words(rules.legal_forms.forms).sort((a, b) => b.length - a.length);

/**
 * A name as two names are compared: plain text without legal forms and without spaces,
 * so "ACME GmbH", "Acme" and the host-name label "acme-gmbh" all read "acme".
 */
export function nameKey(name: string): string {
  let text = ` ${plainText(name)} `;
  for (const form of legalForms) text = text.replaceAll(` ${form} `, ' ');
  return text.replace(/ /g, '');
}

/** Whether two names (or a name and a domain's label) name the same organisation. */
export function sameName(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const left = nameKey(a);
  const right = nameKey(b);
  return left.length >= 2 && left === right;
}

/** The label of a registrable domain without its suffix: `acme-gmbh.de` → `acme-gmbh`. */
export function domainLabel(domain: string): string {
  return getDomainWithoutSuffix(domain) ?? domain;
}

/** Whether a host name lies under a registrable domain that a provider list names. */
export function isProviderDomain(host: string, ownProviderDomains: Iterable<string> = []): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  const domain = getDomain(name);
  const under = (listed: string) => name === listed || name.endsWith(`.${listed}`);
  for (const listed of ownProviderDomains) if (listed && under(listed.toLowerCase())) return true;
  for (const listed of lookupRules.providerDomains) if (under(listed)) return true;
  if (!domain) return false;
  const label = domainLabel(domain);
  return label.split('-').some((part) => lookupRules.providerLabels.has(part));
}

/** The registry's own e-mail domains (ripe.net, arin.net, …): never a network holder's. */
export function isRegistryDomain(domain: string): boolean {
  const registrable = getDomain(domain) ?? domain;
  return lookupRules.registryDomains.has(registrable) || lookupRules.registryDomains.has(domain);
}

// Legal forms as registries write them, the first spelling of each in the list (Corp, not Corp.).
const canonicalForms = new Map<string, string>();
for (const form of rules.legal_forms.forms) {
  if (!canonicalForms.has(plainText(form))) canonicalForms.set(plainText(form), form);
}

/**
 * A name guessed from a host-name label, written the way people read it: `acme-gmbh` →
 * `Acme GmbH`, `xn--mller-bau-q9a` → `Müller Bau`, `sap` → `SAP` (a name of three letters or
 * fewer reads as an acronym).
 */
export function displayName(label: string): string {
  const lower = label.toLowerCase();
  const words = (lower.startsWith('xn--') ? domainToUnicode(lower) || lower : lower)
    .split(/[-_.\s]+/)
    .filter(Boolean);
  const [only] = words;
  if (words.length === 1 && only && only.length <= 3 && /^\p{L}+$/u.test(only)) {
    return only.toUpperCase();
  }
  return words
    .map(
      (word) => canonicalForms.get(plainText(word)) ?? word.charAt(0).toUpperCase() + word.slice(1),
    )
    .join(' ');
}
