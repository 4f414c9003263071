import type { Command } from 'commander';
import { openDatabase } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { serve } from '../serve.js';
import type { Settings } from './database.js';

/** `footfall serve` and `footfall migrate`. */
export function serverCommands(program: Command, config: Settings): void {
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
}
