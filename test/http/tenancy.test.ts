import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let owner: ReturnType<typeof client>;
let stranger: ReturnType<typeof client>;
let workspaceId: string;
let organisationId: string;
let segmentId: string;
const FILTERS = { operator: 'AND', conditions: [{ field: 'tag', comparison: 'set' }] };

beforeAll(async () => {
  t = await startTestApp();
  owner = client(t.url, (await t.operator('owner@example.com')).token);
  stranger = client(t.url, (await t.operator('stranger@example.com')).token);
  workspaceId = (await owner('POST', '/v1/workspaces', { url: 'https://acme.com' })).body.data.uuid;
  organisationId = randomUUID();
  await t.database.db
    .insertInto('organisations')
    .values({ workspace_id: workspaceId, id: organisationId, domain: 'acme.com', name: 'Acme' })
    .execute();
  await owner('POST', `/v1/workspaces/${workspaceId}/custom-fields`, {
    key: 'tier',
    name: 'Tier',
    type: 'text',
  });
  segmentId = (
    await owner('POST', `/v1/workspaces/${workspaceId}/segments`, {
      name: 'Tagged',
      filters: FILTERS,
    })
  ).body.uuid;
});
afterAll(() => t.close());

/** Every workspace route, with a body that would succeed for the owner. */
const routes = (id: string): [string, string, unknown?][] => [
  ['GET', `/v1/workspaces/${id}`],
  ['PATCH', `/v1/workspaces/${id}`, { usage_limit: 5 }],
  ['PATCH', `/v1/workspaces/${id}/tracker-features`, { click_tracking: false }],
  ['GET', `/v1/workspaces/${id}/custom-fields`],
  ['POST', `/v1/workspaces/${id}/custom-fields`, { key: 'other', name: 'Other', type: 'text' }],
  ['GET', `/v1/workspaces/${id}/custom-fields/tier`],
  ['PATCH', `/v1/workspaces/${id}/custom-fields/tier`, { name: 'Stolen' }],
  ['DELETE', `/v1/workspaces/${id}/custom-fields/tier`],
  ['POST', `/v1/workspaces/${id}/tags`, { tag_name: 'stolen' }],
  ['GET', `/v1/workspaces/${id}/segments`],
  ['POST', `/v1/workspaces/${id}/segments`, { name: 'Stolen', filters: FILTERS }],
  ['GET', `/v1/workspaces/${id}/segments/${segmentId}`],
  ['PATCH', `/v1/workspaces/${id}/segments/${segmentId}`, { name: 'Stolen' }],
  ['DELETE', `/v1/workspaces/${id}/segments/${segmentId}`],
  ['POST', `/v1/workspaces/${id}/organisations`, { filters: FILTERS }],
  ['GET', `/v1/workspaces/${id}/sessions?date_from=2026-01-01`],
  ['GET', `/v1/workspaces/${id}/organisations/${organisationId}/sessions`],
  ['GET', `/v1/workspaces/${id}/organisations`],
  ['GET', `/v1/workspaces/${id}/organisations/${organisationId}`],
  ['POST', `/v1/workspaces/${id}/organisations/${organisationId}/tags`, { tag_name: 'stolen' }],
  ['DELETE', `/v1/workspaces/${id}/organisations/${organisationId}/tags`, { tag_name: 'stolen' }],
  [
    'PUT',
    `/v1/workspaces/${id}/organisations/${organisationId}/custom-fields/tier`,
    { value: 'x' },
  ],
  ['DELETE', `/v1/workspaces/${id}/organisations/${organisationId}/custom-fields/tier`],
  ['GET', `/v1/workspaces/${id}/contacts`],
  ['GET', `/v1/workspaces/${id}/privacy`],
  ['PATCH', `/v1/workspaces/${id}/privacy`, { honor_gpc: true }],
  ['GET', `/v1/workspaces/${id}/filters`],
  ['PATCH', `/v1/workspaces/${id}/filters`, { hostnames: ['*'] }],
  ['GET', `/v1/workspaces/${id}/contacts?organisation_uuid=${organisationId}`],
  ['POST', `/v1/workspaces/${id}/unlink`],
];

describe("another operator's workspace", () => {
  it('answers 404 on every route, exactly as a missing workspace does, and changes nothing', async () => {
    const missing = randomUUID();
    for (const [method, path, body] of routes(workspaceId)) {
      const foreign = await stranger(method, path, body);
      expect(foreign.status, `${method} ${path}`).toBe(404);
      const absent = await stranger(method, path.replace(workspaceId, missing), body);
      expect(absent.status).toBe(404);
      expect(foreign.body).toEqual(absent.body);
    }
    const after = await owner('GET', `/v1/workspaces/${workspaceId}`);
    expect(after.body.data).toMatchObject({
      usage_limit: '10000',
      status: 'active',
      available_tags: [],
    });
    const field = await owner('GET', `/v1/workspaces/${workspaceId}/custom-fields/tier`);
    expect(field.body.name).toBe('Tier');
    const segments = await owner('GET', `/v1/workspaces/${workspaceId}/segments`);
    expect(segments.body).toEqual([{ uuid: segmentId, name: 'Tagged' }]);
    const sessions = await owner(
      'GET',
      `/v1/workspaces/${workspaceId}/organisations/${organisationId}/sessions`,
    );
    expect(sessions.status).toBe(200);
    const features = await owner('PATCH', `/v1/workspaces/${workspaceId}/tracker-features`, {});
    expect(features.body.data.click_tracking).toBe(true);
    const privacy = await owner('GET', `/v1/workspaces/${workspaceId}/privacy`);
    expect(privacy.body.data.honor_gpc).toBe(false);
  });

  it('is left out of the other operator’s list', async () => {
    const list = await stranger('GET', '/v1/workspaces');
    expect(list.body.total).toBe(0);
    expect(list.body.data).toEqual([]);
  });

  it('answers 404 for path ids that are not UUIDs on every route', async () => {
    for (const [method, path, body] of routes('nope').filter(
      ([, path]) => !path.includes('/organisations/'),
    )) {
      expect((await owner(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
  });
});
