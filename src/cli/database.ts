import type { Config } from '../config.js';
import { type Db, openDatabase } from '../db/connect.js';
import { migrate } from '../db/migrate.js';

/** The settings, read when a command first asks for them: `--help` needs none. */
export type Settings = () => Config;

/** Runs `work` against the same database as the server (joining its embedded one if running). */
export async function withDatabase<T>(
  config: Config,
  work: (database: Db) => Promise<T>,
): Promise<T> {
  const database = await openDatabase(config, 'cli', (message) =>
    process.stderr.write(`footfall: ${message}\n`),
  );
  try {
    await migrate(database.db);
    return await work(database);
  } finally {
    await database.close();
  }
}
