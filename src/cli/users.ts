import type { Command } from 'commander';
import { createLink, dropSetupLinks } from '../auth/links.js';
import { passwordProblem } from '../auth/passwords.js';
import { createUser, findUserByEmail, setPassword, type User } from '../auth/users.js';
import { type Config, publicOrigin } from '../config.js';
import type { Db } from '../db/connect.js';
import { type Settings, withDatabase } from './database.js';

/**
 * Runs `work` against the server's database for the user with this e-mail address, or
 * fails with a message that says how to make one.
 */
export function withUser<T>(
  config: Config,
  email: string,
  work: (database: Db, user: User) => Promise<T>,
): Promise<T> {
  return withDatabase(config, async (database) => {
    const user = await findUserByEmail(database.db, email);
    if (!user) {
      throw new Error(
        `No user with the email ${email}; create one with: npx --no footfall users create --email ${email}`,
      );
    }
    return work(database, user);
  });
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

/** `footfall users …`: user accounts. */
export function userCommands(program: Command, config: Settings): void {
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
      withUser(config(), options.email, async (database, user) => {
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
      withUser(config(), options.email, async (database, user) => {
        const secret = await createLink(database.db, 'reset', user.id);
        console.log(`${publicOrigin(config())}/reset/${secret}`);
      }),
    );
}
