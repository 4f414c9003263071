import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import {
  readDueSitesNow,
  readSitesNow,
  type SiteRead,
  type SiteReaderDeps,
} from '../enrich/site-reader.js';
import { workspaceDomains } from '../enrich/site-store.js';
import { configuredDns } from '../http/outbound/dns.js';
import { isUuid } from '../http/validation.js';
import { registrableDomain } from '../identify/companies.js';
import { queueChangedDomain } from '../outbox/segment-queue.js';
import { workspaceExists } from '../workspaces/store.js';
import { type Settings, withDatabase } from './database.js';

interface EnrichOptions {
  workspace?: string;
  domain?: string;
}

/** The options' mistakes, found before the database is opened; null when there are none. */
function enrichProblem(config: Config, options: EnrichOptions): string | null {
  if (!config.onlineLookups) {
    return 'ONLINE_LOOKUPS is off, so no company homepage is read. Set ONLINE_LOOKUPS=on to enrich.';
  }
  if (options.workspace !== undefined && options.domain !== undefined) {
    return 'Give --workspace or --domain, not both.';
  }
  if (options.workspace !== undefined && !isUuid(options.workspace)) {
    return `No workspace ${options.workspace}.`;
  }
  if (options.domain !== undefined && registrableDomain(options.domain) === null) {
    return `${options.domain} is not a domain name.`;
  }
  return null;
}

/**
 * `footfall enrich`: reads company homepages now, due or not, for one domain (its
 * registrable domain), a workspace's organisations without a directory entry, or else
 * every due domain. Prints one JSON object per domain as each read ends (JSON Lines) and
 * shows progress on stderr when there are several. A site that fails is data, not an error.
 */
async function enrich(db: Kysely<Database>, config: Config, options: EnrichOptions): Promise<void> {
  const deps: SiteReaderDeps = {
    db,
    allowPrivate: config.allowPrivateWebhooks,
    resolve: configuredDns(config).resolver,
    profileChanged: (domain) => queueChangedDomain(db, domain),
  };
  const bar = new SingleBar(
    {
      format: 'company sites |{bar}| {value}/{total} | {failed} failed | {eta_formatted} left',
      stream: process.stderr,
    },
    Presets.shades_classic,
  );
  let failed = 0;
  let shown = false;
  // A bar for several domains only: one domain's JSON says all.
  const started = (total: number) => {
    shown = total > 1;
    if (shown) bar.start(total, 0, { failed });
  };
  const done = (read: SiteRead) => {
    if (read.status === 'failed') failed++;
    process.stdout.write(`${JSON.stringify(read)}\n`);
    if (shown) bar.increment(1, { failed });
  };
  if (options.domain !== undefined) {
    await readSitesNow(deps, [registrableDomain(options.domain) as string], done);
  } else if (options.workspace !== undefined) {
    if (!(await workspaceExists(db, options.workspace))) {
      throw new Error(`No workspace ${options.workspace}.`);
    }
    const { domains, inDirectory } = await workspaceDomains(db, options.workspace);
    if (inDirectory > 0) {
      process.stderr.write(
        `${inDirectory} of its organisations have a company-directory entry and are left out.\n`,
      );
    }
    started(domains.length);
    await readSitesNow(deps, domains, done);
  } else {
    await readDueSitesNow(deps, started, done);
  }
  if (shown) bar.stop();
}

/** `footfall enrich`. */
export function enrichCommand(program: Command, config: Settings): void {
  program
    .command('enrich')
    .description(
      'read company homepages now, due or not, for their profiles (name, logo, description, profiles, address, …); prints one JSON object per domain',
    )
    .option('--workspace <uuid>', 'the organisations of this workspace without a directory entry')
    .option('--domain <domain>', 'this domain only')
    .action((options: EnrichOptions) => {
      const problem = enrichProblem(config(), options);
      if (problem) throw new Error(problem);
      return withDatabase(config(), (database) => enrich(database.db, config(), options));
    });
}
