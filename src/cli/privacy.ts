import type { Command } from 'commander';
import { isUuid } from '../http/validation.js';
import { forgetPerson } from '../privacy/forget.js';
import { workspaceExists } from '../workspaces/store.js';
import { type Settings, withDatabase } from './database.js';

/** `footfall forget`: one person out of a workspace. */
export function forgetCommand(program: Command, config: Settings): void {
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
}
