import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Resolver } from '../http/outbound/address-guard.js';
import { registrableDomain } from '../identify/companies.js';
import { fetchHomepage } from './site-fetch.js';
import { parseSiteProfile, type SiteProfile } from './site-profile.js';
import {
  claimDomain,
  claimDueDomains,
  countDueDomains,
  LEASE_SECONDS,
  noteNewDomains,
  saveSiteFailure,
  saveSiteProfile,
} from './site-store.js';

export interface SiteReaderDeps {
  db: Kysely<Database>;
  /** ALLOW_PRIVATE_WEBHOOKS: sites on private addresses and over plain http are read. */
  allowPrivate: boolean;
  /** DNS_SERVERS' resolver (http/outbound/dns.ts). */
  resolve: Resolver;
  /** Told after a good read, so what depends on profiles (segments) follows. */
  profileChanged?: (domain: string) => Promise<void>;
  /** The whole read's deadline; 5 s unless a test needs another. */
  deadlineMs?: number;
}

/** What one read found (as `footfall enrich` prints it). */
export type SiteRead =
  | ({ domain: string; status: 'ok'; url: string } & SiteProfile)
  | { domain: string; status: 'failed'; error: string };

/** Reads per server at once: a background job must stay small beside the collector. */
export const READS_AT_ONCE = 4;

/**
 * Reads the homepage of `domain` (leased to the caller), parses its profile and stores
 * it, or why it failed. Throws only when the database does.
 */
export async function readCompanySite(deps: SiteReaderDeps, domain: string): Promise<SiteRead> {
  if (registrableDomain(domain) !== domain) {
    const error = 'not a registrable domain name';
    await saveSiteFailure(deps.db, domain, error);
    return { domain, status: 'failed', error };
  }
  const page = await fetchHomepage(domain, deps);
  if (!page.ok) {
    await saveSiteFailure(deps.db, domain, page.error);
    return { domain, status: 'failed', error: page.error };
  }
  const profile = parseSiteProfile(page.html, page.url, domain);
  await saveSiteProfile(deps.db, domain, page.url, profile);
  await deps.profileChanged?.(domain);
  return { domain, status: 'ok', url: page.url, ...profile };
}

// New organisations are looked for from the last look minus this: a writer's transaction
// stamps its organisations when it starts and may commit a little later.
const LOOK_BACK_MS = 10 * 60_000;

/**
 * One round of the background job: notes the domains of new organisations, then reads
 * due ones, `READS_AT_ONCE` at a time, until none is due or the server stops. The first
 * round of a server looks at every organisation. A read that fails on the database is
 * reported and its domain is read again when its lease runs out.
 */
export function companySitesRound(
  deps: SiteReaderDeps,
  failed: (domain: string, error: Error) => void,
): (stopping: () => boolean) => Promise<void> {
  let lastLook: Date | null = null;
  return async (stopping) => {
    const from = lastLook && new Date(lastLook.getTime() - LOOK_BACK_MS);
    lastLook = await noteNewDomains(deps.db, from);
    while (!stopping()) {
      const domains = await claimDueDomains(deps.db, READS_AT_ONCE);
      const reads = await Promise.allSettled(domains.map((d) => readCompanySite(deps, d)));
      reads.forEach((read, i) => {
        if (read.status === 'rejected') failed(domains[i] ?? '', read.reason as Error);
      });
      if (domains.length < READS_AT_ONCE) return;
    }
  };
}

/**
 * Reads these domains now, due or not (`footfall enrich`), `READS_AT_ONCE` at a time,
 * each when no server is reading it; `done` hears each read as it ends.
 */
export async function readSitesNow(
  deps: SiteReaderDeps,
  domains: string[],
  done: (read: SiteRead) => void,
): Promise<void> {
  const queue = [...domains];
  const worker = async () => {
    for (let domain = queue.shift(); domain !== undefined; domain = queue.shift()) {
      done(await readWhenFree(deps, domain));
    }
  };
  await Promise.all(Array.from({ length: READS_AT_ONCE }, worker));
}

async function readWhenFree(deps: SiteReaderDeps, domain: string): Promise<SiteRead> {
  const until = Date.now() + (LEASE_SECONDS + 5) * 1000;
  while (!(await claimDomain(deps.db, domain))) {
    if (Date.now() > until) {
      return { domain, status: 'failed', error: 'another server kept reading it' };
    }
    await sleep(500);
  }
  return readCompanySite(deps, domain);
}

/**
 * Reads every due domain now (`footfall enrich` without a domain or workspace), after
 * noting the domains of all organisations; `started` hears how many are due.
 */
export async function readDueSitesNow(
  deps: SiteReaderDeps,
  started: (due: number) => void,
  done: (read: SiteRead) => void,
): Promise<void> {
  await noteNewDomains(deps.db, null);
  started(await countDueDomains(deps.db));
  for (;;) {
    const domains = await claimDueDomains(deps.db, READS_AT_ONCE);
    for (const read of await Promise.all(domains.map((d) => readCompanySite(deps, d)))) {
      done(read);
    }
    if (domains.length < READS_AT_ONCE) return;
  }
}
