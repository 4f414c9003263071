import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { startEmbeddedPostgres } from './embedded.js';
import { preparingMarked } from './prepared.js';
import type { Database } from './schema.js';

// Return int8 (counts, sums) as numbers: our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export interface Db {
  pool: pg.Pool;
  db: Kysely<Database>;
  close(): Promise<void>;
}

// A server that does not answer at all (a failover to an address that is gone) makes a
// request wait this long for a connection (new, or free in the pool), then fail, not hang.
const CONNECT_TIMEOUT_MS = 10_000;

/** A pool on `url`; `statementTimeoutMs` (0: none) cuts any statement that runs longer. */
export function connect(url: string, max = 10, statementTimeoutMs = 0): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(statementTimeoutMs > 0 && { statement_timeout: statementTimeoutMs }),
  });
  // A client losing its server (a restart, a failover) emits 'error'; without a listener that
  // ends the process. pg-pool listens only while a client is idle, so this listener covers the
  // time it is checked out (a transaction between statements): the query using it fails
  // instead, and the pool drops a client that errored when it comes back.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    preparingMarked(client);
  });
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { pool, db, close: () => db.destroy() };
}

/**
 * Connects to DATABASE_URL, or starts (or joins) the embedded server in DATA_DIR.
 * `close` ends the pool and stops an embedded server this process started. The server's
 * statements are cut after STATEMENT_TIMEOUT_MS, so one runaway query cannot hold a
 * connection for good; the CLI's (imports, forget) run as long as they need.
 */
export async function openDatabase(
  config: Config,
  role: 'server' | 'cli',
  log: (message: string) => void,
): Promise<Db> {
  const timeout = role === 'server' ? config.statementTimeoutMs : 0;
  if (config.databaseUrl) return connect(config.databaseUrl, 10, timeout);
  const embedded = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    role,
    log,
    avoidPort: config.port,
  });
  const connection = connect(embedded.url, 10, timeout);
  return {
    ...connection,
    close: async () => {
      await connection.close();
      await embedded.stop();
    },
  };
}
