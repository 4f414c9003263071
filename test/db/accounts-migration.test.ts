import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/app.js';

let database: Db;
let drop: () => Promise<void>;

beforeAll(async () => {
  const created = await createTestDatabase();
  drop = created.drop;
  database = connect(created.url);
});
afterAll(async () => {
  await database.close();
  await drop();
});

it('makes every existing workspace’s operator its owner, and keeps tokens and webhook settings', async () => {
  const db = database.db;
  await migrate(db, '0008_identification');
  const [ann, bob] = [randomUUID(), randomUUID()];
  const [one, two, three] = [randomUUID(), randomUUID(), randomUUID()];
  await sql`
    INSERT INTO operators (id, email, name) VALUES (${ann}, 'ann@acme.com', 'Ann'),
      (${bob}, 'bob@initech.com', 'Bob');
    `.execute(db);
  await sql`
    INSERT INTO workspaces (id, operator_id, name, url, usage_limit) VALUES
      (${one}, ${ann}, 'One', 'https://one.example', 10),
      (${two}, ${ann}, 'Two', 'https://two.example', 10),
      (${three}, ${bob}, 'Three', 'https://three.example', 10)`.execute(db);
  const token = randomUUID();
  await sql`INSERT INTO access_tokens (id, operator_id, name) VALUES (${token}, ${bob}, 'ci')`.execute(
    db,
  );

  await sql`
    INSERT INTO webhook_configs (operator_id, url, secret_encrypted)
    VALUES (${ann}, 'https://hooks.acme.com/footfall', '\\x00'::bytea)`.execute(db);

  expect(await migrate(db)).toContain('0009_accounts');

  const members = await db
    .selectFrom('workspace_members')
    .select(['workspace_id', 'user_id', 'role'])
    .orderBy('workspace_id')
    .execute();
  expect(members).toEqual(
    [
      { workspace_id: one, user_id: ann, role: 'owner' },
      { workspace_id: two, user_id: ann, role: 'owner' },
      { workspace_id: three, user_id: bob, role: 'owner' },
    ].sort((a, b) => a.workspace_id.localeCompare(b.workspace_id)),
  );
  const users = await db.selectFrom('users').select(['id', 'email', 'password_hash']).execute();
  expect(users).toHaveLength(2);
  expect(users.every((user) => user.password_hash === null)).toBe(true);
  const tokens = await db.selectFrom('access_tokens').select(['id', 'user_id']).execute();
  expect(tokens).toEqual([{ id: token, user_id: bob }]);
  const hooks = await db.selectFrom('webhook_configs').select(['user_id', 'url']).execute();
  expect(hooks).toEqual([{ user_id: ann, url: 'https://hooks.acme.com/footfall' }]);
});
