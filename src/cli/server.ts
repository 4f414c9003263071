import { type Command, Option } from 'commander';
import { ROLES, type Role } from '../config.js';
import { openDatabase } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { replayQuarantine } from '../ingest/drain.js';
import { serve } from '../serve.js';
import type { Settings } from './database.js';

/** `footfall serve` and `footfall migrate`. */
export function serverCommands(program: Command, config: Settings): void {
  program
    .command('serve')
    .description('serve the API and the collector (what `npm start` runs)')
    .addOption(
      new Option(
        '--role <role>',
        'what this process serves: all, or collector (/t/*, /spotter), worker (processing and jobs) or api (/v1, /radar, /auth, /docs, the dashboard); ROLE in the environment',
      ).choices(ROLES),
    )
    .action((options: { role?: Role }) => {
      const loaded = config();
      return serve(options.role ? { ...loaded, role: options.role } : loaded);
    });

  const ingest = program.command('ingest').description('the inbox of acknowledged events');
  ingest
    .command('replay')
    .description('send quarantined requests back to be processed again')
    .option('--reason <reason>', 'only those kept aside for this reason (e.g. data, unreadable)')
    .action(async (options: { reason?: string }) => {
      const database = await openDatabase(config(), 'cli', (m) => process.stderr.write(`${m}\n`));
      try {
        const moved = await replayQuarantine(database.db, options.reason ?? null);
        console.log(
          moved === 0
            ? 'nothing in the quarantine'
            : `${moved} request${moved === 1 ? '' : 's'} sent back to be processed`,
        );
      } finally {
        await database.close();
      }
    });

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
}
