import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { HOSTILE } from '../helpers/emails.js';
import { runFootfall } from '../helpers/process.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  await t.operator('owner@corp.example');
});
afterAll(() => t.close());

describe('e-mail addresses are a plain local@domain (contract §12, wave 3)', () => {
  it('`footfall users create` refuses them and makes no user', async () => {
    const env = {
      DATABASE_URL: t.deps.config.databaseUrl ?? '',
      DATA_DIR: t.deps.config.dataDir,
    };
    for (const email of HOSTILE) {
      const run = await runFootfall(['users', 'create', '--email', email], env);
      expect(run.code, email).not.toBe(0);
      expect(run.stderr).toContain('is not an email address');
    }
    const users = await t.database.db.selectFrom('users').select('email').execute();
    expect(users.map((u) => u.email)).toEqual(['owner@corp.example']);
  }, 180_000); // one CLI process per address
});
