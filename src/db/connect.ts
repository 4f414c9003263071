import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { startEmbeddedPostgres } from './embedded.js';
import type { Database } from './schema.js';

// Return int8 (counts, sums) as numbers: our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export interface Db {
  pool: pg.Pool;
  db: Kysely<Database>;
  close(): Promise<void>;
}

/** A pool on `url`; `statementTimeoutMs` (0: none) cuts any statement that runs longer. */
export function connect(url: string, max = 10, statementTimeoutMs = 0): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    ...(statementTimeoutMs > 0 && { statement_timeout: statementTimeoutMs }),
  });
  // An idle client losing its server must not crash the process; the next query reports it.
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
