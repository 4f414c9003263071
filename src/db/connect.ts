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

export function connect(url: string, max = 10): Db {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { pool, db, close: () => db.destroy() };
}

/**
 * Connects to DATABASE_URL, or starts (or joins) the embedded server in DATA_DIR.
 * `close` ends the pool and stops an embedded server this process started.
 */
export async function openDatabase(
  config: Config,
  role: 'server' | 'cli',
  log: (message: string) => void,
): Promise<Db> {
  if (config.databaseUrl) return connect(config.databaseUrl);
  const embedded = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    role,
    log,
    avoidPort: config.port,
  });
  const connection = connect(embedded.url);
  return {
    ...connection,
    close: async () => {
      await connection.close();
      await embedded.stop();
    },
  };
}
