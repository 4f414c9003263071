import { Presets, SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import { createLink, dropSetupLinks } from './auth/links.js';
import { passwordProblem } from './auth/passwords.js';
import { createUser, findUserByEmail, setPassword } from './auth/users.js';
import { type EnrichOptions, enrich, enrichProblem } from './cli/enrich.js';
import { type Config, ConfigError, DEFAULT_PORT, loadConfig, publicOrigin } from './config.js';
import { type Db, openDatabase } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { createDemo } from './demo/create.js';
import { loadKeys } from './http/keys.js';
import { parseDuration, Tokens } from './http/tokens.js';
import { isUuid } from './http/validation.js';
import { importCompanies } from './identify/import-companies.js';
import { type ImportSummary, importIpRangesCsv } from './identify/import-ip-ranges.js';
import { installRangeFile } from './identify/ip-range-files.js';
import { installOverrides } from './identify/network-overrides.js';
import { configuredJudge, isOrganisation } from './identify/network-owner.js';
import { mendNetworkOrganisations } from './organisations/mend.js';
import { forgetPerson } from './privacy/forget.js';
import { serve } from './serve.js';
import { presentWorkspace } from './workspaces/present.js';
import { defaultWorkspaceName, parseSiteUrl } from './workspaces/site-url.js';
import { createWorkspace, workspaceExists } from './workspaces/store.js';

/** Runs `work` against the same database as the server (joining its embedded one if running). */
async function withDatabase<T>(config: Config, work: (database: Db) => Promise<T>): Promise<T> {
  const database = await openDatabase(config, 'cli', (message) =>
    process.stderr.write(`footfall: ${message}\n`),
  );
  try {
    await migrate(database.db);
    return await work(database);
  } finally {
    await database.close();
  }
}

async function userOrFail(database: Db, email: string) {
  const user = await findUserByEmail(database.db, email);
  if (!user) {
    throw new Error(
      `No user with the email ${email}; create one with: npx --no footfall users create --email ${email}`,
    );
  }
  return user;
}

/** A password piped in (`--password-stdin`): all of stdin without its final line break. */
async function passwordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new Error('Pipe the password in, e.g.: printf %s "$PASSWORD" | npx --no footfall ...');
  }
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const password = text.replace(/\r?\n$/, '');
  const problem = passwordProblem(password);
  if (problem) throw new Error(problem);
  return password;
}

function durationOption(value: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export function cli(config: () => Config): Command {
  const program = new Command('footfall')
    .description('Footfall: which organisations visit your website, and what they do there.')
    .showHelpAfterError();

  program
    .command('serve')
    .description('serve the API and the collector (what `npm start` runs)')
    .action(() => serve(config()));

  program
    .command('migrate')
    .description('apply pending database migrations and exit')
    .action(async () => {
      const database = await openDatabase(config(), 'cli', (m) => process.stderr.write(`${m}\n`));
      try {
        const applied = await migrate(database.db);
        console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'up to date');
      } finally {
        await database.close();
      }
    });

  const users = program.command('users').description('user accounts');
  users
    .command('create')
    .description('create a user; prints its uuid')
    .requiredOption('--email <email>', 'the user’s email address')
    .option('--name <name>', 'display name', '')
    .option('--password-stdin', 'read a password for browser sign-in from stdin')
    .action((options: { email: string; name: string; passwordStdin?: boolean }) =>
      withDatabase(config(), async (database) => {
        const password = options.passwordStdin ? await passwordFromStdin() : undefined;
        const user = await createUser(database.db, options.email, options.name, password);
        await dropSetupLinks(database.db);
        console.log(user.id);
        // On stderr: scripts read the uuid alone from stdout (contract §11).
        const origin = publicOrigin(config());
        process.stderr.write(
          password
            ? `footfall: ${user.email} can sign in at ${origin}\n`
            : `footfall: to sign in at ${origin}, ${user.email} needs a password: npx --no footfall users reset-link --email ${user.email}\n`,
        );
      }),
    );
  users
    .command('set-password')
    .description("set a user's password from stdin; their browser sessions and API tokens end")
    .requiredOption('--email <email>', 'the user')
    .action((options: { email: string }) =>
      withDatabase(config(), async (database) => {
        const user = await userOrFail(database, options.email);
        await setPassword(database.db, user.id, await passwordFromStdin());
        console.log('password set');
      }),
    );
  users
    .command('reset-link')
    .description(
      'print a one-time link (valid 24 hours) to choose a new password; using it ends their sessions and API tokens',
    )
    .requiredOption('--email <email>', 'the user')
    .action((options: { email: string }) =>
      withDatabase(config(), async (database) => {
        const user = await userOrFail(database, options.email);
        const secret = await createLink(database.db, 'reset', user.id);
        console.log(`${publicOrigin(config())}/reset/${secret}`);
      }),
    );

  const tokens = program.command('tokens').description('personal access tokens');
  tokens
    .command('create')
    .description('create a personal access token; prints only the token')
    .requiredOption('--email <email>', 'the user the token acts for')
    .option('--name <name>', 'what the token is for', '')
    .option(
      '--expires-in <duration>',
      'lifetime such as 90d, 12h or 1y (default: none)',
      durationOption,
    )
    .action((options: { email: string; name: string; expiresIn?: number }) =>
      withDatabase(config(), async (database) => {
        const user = await userOrFail(database, options.email);
        const keys = await loadKeys(config());
        const expiresAt = options.expiresIn ? new Date(Date.now() + options.expiresIn) : null;
        const issued = await new Tokens(database.db, keys.tokenSigning).issue(
          user.id,
          options.name,
          expiresAt,
        );
        console.log(issued.token);
      }),
    );
  tokens
    .command('revoke')
    .description('revoke a token by its id (or by the token itself)')
    .argument('<token-id>')
    .action((tokenId: string) =>
      withDatabase(config(), async (database) => {
        const keys = await loadKeys(config());
        if (!(await new Tokens(database.db, keys.tokenSigning).revoke(tokenId))) {
          throw new Error('No such live token.');
        }
        console.log('revoked');
      }),
    );
  tokens
    .command('list')
    .description("list a user's tokens (ids, names, expiry, revocation)")
    .requiredOption('--email <email>', 'the user')
    .action((options: { email: string }) =>
      withDatabase(config(), async (database) => {
        const user = await userOrFail(database, options.email);
        const keys = await loadKeys(config());
        const rows = await new Tokens(database.db, keys.tokenSigning).list(user.id);
        console.log(JSON.stringify(rows, null, 2));
      }),
    );

  const workspaces = program.command('workspaces').description('workspaces (tracked websites)');
  workspaces
    .command('create')
    .description('create a workspace; prints it as JSON, as the API shows it')
    .requiredOption('--email <email>', 'the user who owns it')
    .requiredOption('--url <url>', 'the tracked site, e.g. https://example.com')
    .option('--name <name>', 'display name (default: the site’s host)')
    .action((options: { email: string; url: string; name?: string }) =>
      withDatabase(config(), async (database) => {
        const settings = config();
        const user = await userOrFail(database, options.email);
        const url = parseSiteUrl(options.url);
        const row = await createWorkspace(database.db, user.id, {
          url,
          name: options.name?.trim() || defaultWorkspaceName(url),
          usageLimit: settings.defaultUsageLimit,
        });
        console.log(JSON.stringify(presentWorkspace(row, publicOrigin(settings)), null, 2));
      }),
    );

  program
    .command('demo')
    .description(
      'make a demo workspace with synthetic companies and their visits, and say how to look',
    )
    .option(
      '--days <days>',
      'how many days of visits',
      (value) => {
        const days = Number(value);
        if (!Number.isInteger(days) || days < 1 || days > 365) {
          throw new InvalidArgumentError('a whole number of days from 1 to 365');
        }
        return days;
      },
      30,
    )
    .option('--email <email>', 'the user who owns it (made if missing)', 'demo@example.com')
    .action((options: { days: number; email: string }) =>
      withDatabase(config(), async (database) => {
        const settings = config();
        const keys = await loadKeys(settings);
        const demo = await createDemo(database.db, new Tokens(database.db, keys.tokenSigning), {
          email: options.email,
          days: options.days,
          idleMs: settings.sessionIdleSeconds * 1000,
          usageLimit: settings.defaultUsageLimit,
        });
        const base = publicOrigin(settings);
        const today = new Date().toISOString().slice(0, 10);
        const from = new Date(Date.now() - options.days * 86_400_000).toISOString().slice(0, 10);
        console.log(
          [
            `Demo workspace ${demo.workspaceId}: ${demo.organisations} organisations, ${demo.sessions} sessions, ${demo.events} events over ${options.days} days.`,
            '',
            `With the server running (${startCommand(settings)}), look at it:`,
            `  TOKEN=${demo.token}`,
            `  curl -s -H "Authorization: Bearer $TOKEN" "${base}/v1/workspaces/${demo.workspaceId}/organisations"`,
            `  curl -s -H "Authorization: Bearer $TOKEN" "${base}/v1/workspaces/${demo.workspaceId}/sessions?date_from=${from}&date_to=${today}"`,
            `The API reference is at ${base}/docs.`,
          ].join('\n'),
        );
      }),
    );

  program
    .command('forget')
    .description(
      'delete one person from a workspace (every address and browser linked to the one given): their contacts, visitors, sessions, events and every other row holding one of their addresses or visitor ids; prints what went, as JSON',
    )
    .requiredOption('--workspace <uuid>', 'the workspace')
    .option('--email <email>', 'the person’s email address')
    .option('--visitor <uuid>', 'a visitor id of the person (the tracker’s anonymous_id)')
    .action((options: { workspace: string; email?: string; visitor?: string }) => {
      if ((options.email === undefined) === (options.visitor === undefined)) {
        throw new Error('Give exactly one of --email or --visitor.');
      }
      if (options.visitor !== undefined && !isUuid(options.visitor)) {
        throw new Error(`--visitor ${options.visitor} is not a UUID.`);
      }
      if (!isUuid(options.workspace)) throw new Error(`No workspace ${options.workspace}.`);
      return withDatabase(config(), async (database) => {
        if (!(await workspaceExists(database.db, options.workspace))) {
          throw new Error(`No workspace ${options.workspace}.`);
        }
        const forgotten = await forgetPerson(
          database.db,
          options.workspace,
          options.email !== undefined
            ? { email: options.email }
            : { visitorId: options.visitor as string },
        );
        console.log(JSON.stringify(forgotten, null, 2));
      });
    });

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

  const importer = program.command('import').description('bring in identification data');
  importer
    .command('ip-ranges')
    .description(
      'IP ranges of organisations: CSV with network,domain,name (IPv4 and IPv6), or a MaxMind .mmdb with organization or name/domain fields',
    )
    .argument('<file>', 'a .csv or .mmdb file')
    .action(async (file: string) => {
      if (file.toLowerCase().endsWith('.mmdb')) {
        console.log(await installRangeFile(config().dataDir, file));
        return;
      }
      await withDatabase(config(), async (database) => {
        if (!file.toLowerCase().endsWith('.csv')) {
          throw new Error(
            'Give a .csv file with the columns network,domain,name, or a .mmdb file.',
          );
        }
        reportImport(await importIpRangesCsv(database.db, file), 'ranges');
      });
    });

  importer
    .command('companies')
    .description(
      'the company directory that fills organisation profiles: CSV or JSONL keyed by domain',
    )
    .argument('<file>', 'a .csv file with a header line, or a .jsonl file')
    .action((file: string) =>
      withDatabase(config(), async (database) => {
        const bar = new SingleBar(
          {
            format: 'companies |{bar}| {percentage}% | {rows} rows | {eta_formatted} left',
            stream: process.stderr,
          },
          Presets.shades_classic,
        );
        bar.start(100, 0, { rows: 0 });
        const summary = await importCompanies(database.db, file, (read, total, rows) =>
          bar.update(total > 0 ? Math.round((read / total) * 100) : 100, { rows }),
        );
        bar.update(100);
        bar.stop();
        reportImport(summary, 'companies');
      }),
    );

  importer
    .command('network-kinds')
    .description(
      'overrides of the network owner: CSV asn,kind with kind business, isp, mobile or hosting; replaces the previous file, applies without a restart',
    )
    .argument('<file>', 'a .csv file')
    .action(async (file: string) => {
      const summary = await installOverrides(config().dataDir, file);
      if (summary.refused.length > 0) process.stderr.write('nothing installed\n');
      reportImport(summary, 'network kinds');
    });

  program
    .command('identification')
    .description('how visits become organisations')
    .command('mend')
    .description(
      'take the attribution away from sessions whose only evidence is a network now judged no organisation, remove organisations left with nothing, and move network organisations to the enterprise domain their network now names; prints what it changes, as JSON',
    )
    .option('--dry-run', 'print what would change, change nothing')
    .option('--workspace <uuid>', 'only this workspace')
    .action((options: { dryRun?: boolean; workspace?: string }) => {
      if (options.workspace !== undefined && !isUuid(options.workspace)) {
        throw new Error(`No workspace ${options.workspace}.`);
      }
      return withDatabase(config(), async (database) => {
        const settings = config();
        const judge = await configuredJudge(settings);
        const strictness = settings.networkOwnerStrictness;
        const report = await mendNetworkOrganisations(
          database.db,
          async (asn) => {
            const judgement = await judge.judgeAsn(asn);
            return {
              organisation: judgement !== null && isOrganisation(judgement, strictness),
              ...(judgement?.domain
                ? { domain: judgement.domain, name: judgement.common_name ?? judgement.name }
                : {}),
              judged: judgement
                ? { kind: judgement.kind, rule: judgement.rule, strictness }
                : { kind: 'unknown', rule: 'not in the network data', strictness },
            };
          },
          { dryRun: options.dryRun === true, workspaceId: options.workspace },
        );
        console.log(JSON.stringify(report, null, 2));
      });
    });

  return program;
}

/** Prints what an import refused (the first 20 lines of it) and its one-line summary. */
function reportImport(summary: ImportSummary, what: string): void {
  for (const { line, reason } of summary.refused.slice(0, 20)) {
    process.stderr.write(`line ${line}: ${reason}\n`);
  }
  if (summary.refused.length > 20) {
    process.stderr.write(`... and ${summary.refused.length - 20} more refused lines\n`);
  }
  console.log(`${summary.taken} ${what} taken, ${summary.refused.length} refused`);
  if (summary.taken === 0 && summary.refused.length > 0) process.exitCode = 1;
}

/** How to start the server these settings describe, for the hints that name its address. */
const startCommand = (config: Config) =>
  config.port === DEFAULT_PORT ? 'npm start' : `PORT=${config.port} npm start`;

let loaded: Config | undefined;
const config = () => {
  loaded ??= loadConfig();
  return loaded;
};

cli(config)
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `footfall: ${error instanceof ConfigError ? message : `error: ${message}`}\n`,
    );
    process.exitCode = 1;
  });
