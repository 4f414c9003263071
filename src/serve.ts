import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp } from './app.js';
import { createLink } from './auth/links.js';
import { countUsers } from './auth/users.js';
import { type Config, publicOrigin } from './config.js';
import { openDatabase } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { routeReads } from './db/read-routing.js';
import { loadKeys } from './http/keys.js';
import { Tokens } from './http/tokens.js';
import { defaultAsnDatabases, networkTable } from './identify/network-owner.js';
import { serves } from './jobs.js';
import { mailServerName, mailServerProblem } from './mail/transport.js';

/** `footfall serve`: database, migrations, HTTP server, and a clean stop on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const say = (message: string) => process.stderr.write(`footfall: ${message}\n`);
  const database = await openDatabase(config, 'server', say);
  // DATABASE_READ_URL: lists, exports and stats read from the replica (db/read-routing.ts).
  const reads = routeReads(config, database, say);
  let app: Awaited<ReturnType<typeof buildApp>>;
  let built: typeof app | undefined;
  try {
    const applied = await migrate(database.db);
    if (applied.length > 0) say(`applied migrations: ${applied.join(', ')}`);
    // Load the network-owner data now, not on the first visit (a few seconds).
    void networkTable(config.asnDb ?? defaultAsnDatabases()).catch((error) =>
      say(`network-owner data could not be read: ${(error as Error).message}`),
    );
    const keys = await loadKeys(config);
    const tokens = new Tokens(database.db, keys.tokenSigning);
    built = await buildApp({ config, db: database.db, reads, keys, tokens });
    await built.listen({ port: config.port, host: config.host });
    app = built;
    if (config.role !== 'all') say(`serving as ${config.role} (contract §19 roles)`);
  } catch (error) {
    // The app's jobs started with it: stopped before the database they use goes.
    await built?.close();
    await reads.close();
    await database.close();
    throw listenProblem(error, config) ?? error;
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      app.log.warn(`${signal} again: exiting at once`);
      process.exit(1);
    }
    stopping = true;
    app.log.info(`${signal} received: finishing open requests, then stopping`);
    await app.close();
    await reads.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  void reportMail(config, app.log);

  if (serves(config.role, 'api') && (await countUsers(database.db)) === 0) {
    // A one-time link (kept only as a hash): whoever reads this log creates the first account.
    const secret = await createLink(database.db, 'setup', null);
    // The port the server got, which PORT=0 leaves to the system.
    const origin = publicOrigin(config, (app.server.address() as AddressInfo).port);
    say(
      `No account yet. Open this one-time link to create the first one (valid 24 hours):\n` +
        `  ${origin}/setup/${secret}\n` +
        'or, from a shell (the server can keep running):\n' +
        '  npx --no footfall users create --email you@example.com --password-stdin\n' +
        '  npx --no footfall tokens create --email you@example.com\n' +
        'then call the API with: curl -H "Authorization: Bearer <token>" ' +
        `${origin}/v1/workspaces  (reference: ${origin}/docs)`,
    );
  }
}

/**
 * Says once at start whether e-mail works: a wrong SMTP_URL shows here, as a warning the
 * server runs on with, rather than at the first invite, alert or password reset.
 */
async function reportMail(config: Config, log: FastifyBaseLogger): Promise<void> {
  if (!config.smtpUrl) {
    log.info(
      'e-mail is off (SMTP_URL is not set): invite links are shown to share by hand, and alerts by e-mail and password resets by e-mail are not offered',
    );
    return;
  }
  const problem = await mailServerProblem(config.smtpUrl);
  if (problem) {
    log.warn(`${problem}; invites, e-mail alerts and password resets will fail until it is fixed`);
  } else {
    log.info(`e-mail goes through ${mailServerName(config.smtpUrl)}`);
  }
}

/**
 * What to do when the port cannot be had, in one line (the CLI prints it without a stack):
 * a port in use, one below 1024 without the privilege, or a HOST this machine does not have.
 */
function listenProblem(error: unknown, config: Config): Error | undefined {
  const where = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  switch ((error as { code?: unknown }).code) {
    case 'EADDRINUSE':
      return new Error(
        `${where} is already in use (another Footfall, or another server?): stop it, or choose another port, e.g. PORT=${config.port + 1} npm start`,
      );
    case 'EACCES':
      return new Error(
        `no permission to listen on ${where}${config.port < 1024 ? ' (ports below 1024 need privileges)' : ''}: choose another port, e.g. PORT=${config.port < 1024 ? 3000 : config.port + 1} npm start, with a proxy in front if it must be ${config.port}`,
      );
    case 'EADDRNOTAVAIL':
      return new Error(
        `${config.host} is not an address of this machine: choose another HOST, e.g. HOST=0.0.0.0 npm start for all of them`,
      );
  }
  return undefined;
}
