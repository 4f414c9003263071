import type { Command } from 'commander';
import { publicOrigin } from '../config.js';
import { presentWorkspace } from '../workspaces/present.js';
import { defaultWorkspaceName, parseSiteUrl } from '../workspaces/site-url.js';
import { createWorkspace } from '../workspaces/store.js';
import type { Settings } from './database.js';
import { withUser } from './users.js';

/** `footfall workspaces …`: workspaces (tracked websites). */
export function workspaceCommands(program: Command, config: Settings): void {
  const workspaces = program.command('workspaces').description('workspaces (tracked websites)');
  workspaces
    .command('create')
    .description('create a workspace; prints it as JSON, as the API shows it')
    .requiredOption('--email <email>', 'the user who owns it')
    .requiredOption('--url <url>', 'the tracked site, e.g. https://example.com')
    .option('--name <name>', 'display name (default: the site’s host)')
    .action((options: { email: string; url: string; name?: string }) =>
      withUser(config(), options.email, async (database, user) => {
        const settings = config();
        const url = parseSiteUrl(options.url);
        const row = await createWorkspace(database.db, user.id, {
          url,
          name: options.name?.trim() || defaultWorkspaceName(url),
          usageLimit: settings.defaultUsageLimit,
        });
        console.log(JSON.stringify(presentWorkspace(row, publicOrigin(settings)), null, 2));
      }),
    );
}
