import { Command } from 'commander';
import type { Settings } from './cli/database.js';
import { demoCommand } from './cli/demo.js';
import { enrichCommand } from './cli/enrich.js';
import { identificationCommands, importCommands } from './cli/identify.js';
import { forgetCommand } from './cli/privacy.js';
import { serverCommands } from './cli/server.js';
import { tokenCommands } from './cli/tokens.js';
import { userCommands } from './cli/users.js';
import { workspaceCommands } from './cli/workspaces.js';
import { type Config, ConfigError, loadConfig } from './config.js';

/** The `footfall` command; the order commands are added in is the order help lists them. */
export function cli(config: Settings): Command {
  const program = new Command('footfall')
    .description('Footfall: which organisations visit your website, and what they do there.')
    .showHelpAfterError();
  serverCommands(program, config);
  userCommands(program, config);
  tokenCommands(program, config);
  workspaceCommands(program, config);
  demoCommand(program, config);
  forgetCommand(program, config);
  enrichCommand(program, config);
  importCommands(program, config);
  identificationCommands(program, config);
  return program;
}

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
