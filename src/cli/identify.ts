import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { isUuid } from '../http/validation.js';
import { importCompanies } from '../identify/import-companies.js';
import { type ImportSummary, importIpRangesCsv } from '../identify/import-ip-ranges.js';
import { installRangeFile } from '../identify/ip-range-files.js';
import { installOverrides } from '../identify/network-overrides.js';
import { configuredJudge, isOrganisation } from '../identify/network-owner.js';
import { mendNetworkOrganisations } from '../organisations/mend.js';
import { type Settings, withDatabase } from './database.js';

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

/** `footfall import …`: the data that identification reads. */
export function importCommands(program: Command, config: Settings): void {
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
}

/** `footfall identification mend`: attributions made again by today's network judgement. */
export function identificationCommands(program: Command, config: Settings): void {
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
}
