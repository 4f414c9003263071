import { sql } from 'kysely';
import { beforeAll } from 'vitest';
import { databaseOfItsOwn } from './app.js';

/**
 * A small deterministic generator (mulberry32) and a pick from a list, so that a test that
 * draws its data at random draws the same every run and a failure can be run again.
 */
export function seeded(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T };
}

/**
 * A migrated database of its own holding one workspace and these organisations
 * (`org-<i>.example`), for tests that write sessions straight into it; dropped after the
 * file's tests. `database()` is the connection once the file's tests run.
 */
export function workspaceDatabase(workspaceId: string, organisations: readonly string[]) {
  const database = databaseOfItsOwn({ migrated: true, connections: 10 });
  beforeAll(async () => {
    const { db } = database();
    await sql`
      INSERT INTO workspaces (id, name, url, usage_limit)
      VALUES (${workspaceId}, 'Site', 'https://site.example', 1000)`.execute(db);
    for (const [i, id] of organisations.entries()) {
      await sql`
        INSERT INTO organisations (workspace_id, id, domain)
        VALUES (${workspaceId}, ${id}, ${`org-${i}.example`})`.execute(db);
    }
  });
  return database;
}
