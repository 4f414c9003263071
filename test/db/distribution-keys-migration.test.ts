import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { databaseOfItsOwn } from '../helpers/app.js';

// 0033 rebuilds the keys of tables that already hold rows in a running service; this fills
// them on the schema before it, migrates, and checks that every row and every relation is
// still there, and that deletes still cascade as before.

const db = databaseOfItsOwn();

const affected = [
  'webhook_deliveries',
  'outbox_events',
  'crm_deliveries',
  'tracking_scripts',
  'invites',
  'custom_fields',
  'zapier_hooks',
  'zapier_deliveries',
] as const;

async function counts(): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const table of affected) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(db().db);
    result[table] = rows[0]?.n ?? -1;
  }
  return result;
}

it('keeps every row and relation of the re-keyed tables, and their cascades', async () => {
  const k = db().db;
  expect(await migrate(k, '0032_read_fences')).toContain('0032_read_fences');
  const user = randomUUID();
  const [one, two] = [randomUUID(), randomUUID()];
  await sql`INSERT INTO users (id, email) VALUES (${user}, 'ann@acme.com')`.execute(k);
  await sql`
    INSERT INTO workspaces (id, name, url, usage_limit) VALUES
      (${one}, 'One', 'https://one.example', 100), (${two}, 'Two', 'https://two.example', 100)`.execute(
    k,
  );
  for (const workspace of [one, two]) {
    for (const statement of [
      sql`INSERT INTO tracking_scripts (id, workspace_id)
          VALUES (${`ff_${randomBytes(6).toString('hex')}`}, ${workspace})`,
      sql`INSERT INTO invites (secret_hash, workspace_id, email, role, invited_by, expires_at)
          VALUES (${randomBytes(32)}, ${workspace}, 'bob@acme.com', 'member', ${user},
                  now() + interval '7 days')`,
      sql`INSERT INTO custom_fields (workspace_id, key, identifier, name, type)
          VALUES (${workspace}, 'tier', ${randomUUID()}, 'Tier', 'text')`,
      sql`INSERT INTO outbox_events (workspace_id, kind)
          VALUES (${workspace}, 'session.started'), (${workspace}, 'session.ended')`,
      sql`INSERT INTO crm_connections (workspace_id, name, token_encrypted)
          VALUES (${workspace}, 'hubspot', '\\x00'::bytea)`,
      sql`INSERT INTO crm_deliveries (id, workspace_id, integration, kind, organisation_id)
          VALUES (${randomUUID()}, ${workspace}, 'hubspot', 'company', ${randomUUID()})`,
      sql`INSERT INTO webhook_deliveries (id, user_id, workspace_id, event)
          VALUES (${randomUUID()}, ${user}, ${workspace}, 'session.started')`,
    ]) {
      await statement.execute(k);
    }
  }
  // A hook of each workspace, with two deliveries each.
  const hooks = [randomUUID(), randomUUID()];
  for (const [index, workspace] of [one, two].entries()) {
    const hook = hooks[index] as string;
    await sql`
      INSERT INTO zapier_hooks (id, workspace_id, name, hook_url, event)
      VALUES (${hook}, ${workspace}, 'Leads', 'https://hooks.zapier.com/1', 'new_lead')`.execute(k);
    await sql`
      INSERT INTO zapier_deliveries (id, workspace_id, hook_id, event)
      VALUES (${randomUUID()}, ${workspace}, ${hook}, 'new_lead'),
        (${randomUUID()}, ${workspace}, ${hook}, 'new_lead')`.execute(k);
  }
  const ping = randomUUID();
  await sql`
    INSERT INTO webhook_deliveries (id, user_id, workspace_id, event, body)
    VALUES (${ping}, ${user}, NULL, 'ping', '{}')`.execute(k);
  const before = await counts();

  expect(await migrate(k)).toContain('0033_distribution_keys');

  expect(await counts()).toEqual(before);
  const { rows: pings } = await sql<{ workspace_id: string }>`
    SELECT workspace_id FROM webhook_deliveries WHERE id = ${ping}`.execute(k);
  expect(pings).toEqual([{ workspace_id: '00000000-0000-0000-0000-000000000000' }]);
  const { rows: joined } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM zapier_deliveries d
    JOIN zapier_hooks h ON h.workspace_id = d.workspace_id AND h.id = d.hook_id`.execute(k);
  expect(joined).toEqual([{ n: 4 }]);

  // A hook's deliveries still go with it, and a workspace's rows with the workspace.
  await sql`DELETE FROM zapier_hooks WHERE id = ${hooks[0] as string}`.execute(k);
  const { rows: left } = await sql<{ workspace_id: string }>`
    SELECT workspace_id FROM zapier_deliveries`.execute(k);
  expect(left.map((row) => row.workspace_id)).toEqual([two, two]);
  await sql`DELETE FROM workspaces WHERE id = ${two}`.execute(k);
  const after = await counts();
  expect(after).toMatchObject({
    tracking_scripts: 1,
    invites: 1,
    custom_fields: 1,
    crm_deliveries: 1,
    zapier_hooks: 0,
    zapier_deliveries: 0,
  });

  // Statements that find a row by its id alone (a claimed delivery, the oldest outbox
  // events, a script or an invite) keep an index that leads with it.
  const { rows: plain } = await sql<{ table: string }>`
    SELECT DISTINCT t.relname AS table FROM pg_index x
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
    WHERE t.relname = ANY(${[...affected]}) AND a.attname IN ('id', 'secret_hash')
    ORDER BY 1`.execute(k);
  expect(plain.map((row) => row.table)).toEqual(
    affected.filter((table) => table !== 'custom_fields').sort(),
  );

  // The new keys are keys within a workspace: the same custom field identifier may not
  // repeat in one workspace.
  const { rows: field } = await sql<{ identifier: string }>`
    SELECT identifier FROM custom_fields WHERE workspace_id = ${one}`.execute(k);
  await expect(
    sql`INSERT INTO custom_fields (workspace_id, key, identifier, name, type)
        VALUES (${one}, 'size', ${field[0]?.identifier as string}, 'Size', 'text')`.execute(k),
  ).rejects.toThrow(/custom_fields_identifier_key/);
});
