import { type Command, InvalidArgumentError } from 'commander';
import { loadKeys } from '../http/keys.js';
import { parseDuration, Tokens } from '../http/tokens.js';
import { type Settings, withDatabase } from './database.js';
import { withUser } from './users.js';

function durationOption(value: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** `footfall tokens …`: personal access tokens. */
export function tokenCommands(program: Command, config: Settings): void {
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
      withUser(config(), options.email, async (database, user) => {
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
      withUser(config(), options.email, async (database, user) => {
        const keys = await loadKeys(config());
        const rows = await new Tokens(database.db, keys.tokenSigning).list(user.id);
        console.log(JSON.stringify(rows, null, 2));
      }),
    );
}
