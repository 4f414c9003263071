import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let call: ReturnType<typeof client>;
let ws: string;
let org: string;

beforeAll(async () => {
  t = await startTestApp();
  call = client(t.url, (await t.operator()).token);
  ws = (await call('POST', '/v1/workspaces', { url: 'https://shop.example' })).body.data.uuid;
  // An organisation to tag; how it came to be does not matter here.
  org = randomUUID();
  await t.database.db
    .insertInto('organisations')
    .values({ workspace_id: ws, id: org, domain: 'tagged.example', name: '' })
    .execute();
});
afterAll(() => t.close());

const hot = { operator: 'AND', conditions: [{ field: 'tag', comparison: 'equal', value: 'hot' }] };

describe('segment membership under concurrent changes', () => {
  it('deleting segments while an organisation is tagged never answers 5xx', async () => {
    const statuses: number[] = [];
    for (let round = 0; round < 15; round++) {
      const segments = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const created = await call('POST', `/v1/workspaces/${ws}/segments`, {
            name: `Hot ${round}.${i}`,
            filters: hot,
          });
          expect(created.status).toBe(201);
          return created.body.uuid as string;
        }),
      );
      // The tag's refresh reads the segments and writes their members while they go.
      const answers = await Promise.all([
        call('POST', `/v1/workspaces/${ws}/organisations/${org}/tags`, { tag_name: 'hot' }),
        ...segments.map((uuid) => call('DELETE', `/v1/workspaces/${ws}/segments/${uuid}`)),
      ]);
      statuses.push(...answers.map((answer) => answer.status));
      const untagged = await call('DELETE', `/v1/workspaces/${ws}/organisations/${org}/tags`, {
        tag_name: 'hot',
      });
      statuses.push(untagged.status);
    }
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(new Set(statuses)).toEqual(new Set([200]));
    // Nothing is left of the deleted segments.
    const left = await t.database.db.selectFrom('segment_members').select('segment_id').execute();
    expect(left).toEqual([]);
  });

  it('takes relative dates further back than PostgreSQL’s calendar (not a 500)', async () => {
    const since = (comparison: string, unit: string) => ({
      operator: 'AND',
      conditions: [{ field: 'last_seen', comparison, value: 100_000, unit }],
    });
    for (const unit of ['years', 'months']) {
      const recent = await call('POST', `/v1/workspaces/${ws}/segments`, {
        name: `Seen in the last 100,000 ${unit}`,
        filters: since('less_than_x_units_ago', unit),
      });
      expect(recent.status).toBe(201);
      const old = await call('POST', `/v1/workspaces/${ws}/segments`, {
        name: `Not seen for 100,000 ${unit}`,
        filters: since('more_than_x_units_ago', unit),
      });
      expect(old.status).toBe(201);
      const members = async (uuid: string) =>
        (await call('GET', `/v1/workspaces/${ws}/organisations?segmentUuid=${uuid}`)).body.data.map(
          (organisation: { uuid: string }) => organisation.uuid,
        );
      expect(await members(recent.body.uuid)).toEqual([org]);
      expect(await members(old.body.uuid)).toEqual([]);
    }
  });
});
