import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './helpers/app.js';
import { expectShape } from './helpers/shape.js';

let t: TestApp;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  t = await startTestApp();
  call = client(t.url, (await t.operator()).token);
});
afterAll(() => t.close());

describe('GET /v1/workspaces/{ws}/segments', () => {
  it('answers a bare array, empty at first', async () => {
    const ws = (await call('POST', '/v1/workspaces', { url: 'https://acme.com' })).body.data.uuid;
    const answer = await call('GET', `/v1/workspaces/${ws}/segments`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([]);
  });

  it('lists the workspace’s segments as [{uuid, name}] ordered by name, and no others', async () => {
    const ws = (await call('POST', '/v1/workspaces', { url: 'https://acme.com' })).body.data.uuid;
    const other = (await call('POST', '/v1/workspaces', { url: 'https://other.com' })).body.data
      .uuid;
    // Segments are made through the API in a later release; the listing reads what is stored.
    const filters = JSON.stringify({ operator: 'AND', conditions: [] });
    for (const [workspaceId, name] of [
      [ws, 'Germany'],
      [ws, 'Enterprise'],
      [other, 'Elsewhere'],
    ]) {
      await t.database.db
        .insertInto('segments')
        .values({
          workspace_id: workspaceId as string,
          id: randomUUID(),
          name: name as string,
          filters,
        })
        .execute();
    }
    const answer = await call('GET', `/v1/workspaces/${ws}/segments`);
    expect(Array.isArray(answer.body)).toBe(true);
    expect(answer.body.map((s: { name: string }) => s.name)).toEqual(['Enterprise', 'Germany']);
    for (const segment of answer.body) expectShape(segment, { uuid: 'string', name: 'string' });
  });
});
