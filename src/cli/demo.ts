import { type Command, InvalidArgumentError } from 'commander';
import { type Config, DEFAULT_PORT, publicOrigin } from '../config.js';
import { createDemo } from '../demo/create.js';
import { loadKeys } from '../http/keys.js';
import { Tokens } from '../http/tokens.js';
import { type Settings, withDatabase } from './database.js';

/** How to start the server these settings describe, for the hints that name its address. */
const startCommand = (config: Config) =>
  config.port === DEFAULT_PORT ? 'npm start' : `PORT=${config.port} npm start`;

/** `footfall demo`: a demo workspace, and how to look at it. */
export function demoCommand(program: Command, config: Settings): void {
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
}
