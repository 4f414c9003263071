import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, identify, pageview, visit } from '../helpers/collect.js';
import { expectShape } from '../helpers/shape.js';

const CONTACT_SHAPE = {
  uuid: 'string',
  email: 'string',
  traits: 'object',
  organisation_uuid: 'string|null',
  visitor_uuids: 'array',
  first_seen: 'string',
  last_seen: 'string',
};
const SITE = 'https://site.example';

let t: TestApp;
let api: ReturnType<typeof client>;
let ws: string;
let other: string;

/** A workspace where one person identified themselves; answers its uuid and script. */
async function workspaceWithContact(url: string, email: string) {
  const workspace = (await api('POST', '/v1/workspaces', { url })).body.data;
  const now = Date.now();
  const sent = await collector(t.url)(
    visit(workspace.tracking_script_id, [
      pageview(`${url}/`, now - 60_000),
      identify(`${url}/signup`, email, now, { plan: 'pro' }),
    ]),
  );
  expect(sent.status).toBe(202);
  return workspace.uuid as string;
}

beforeAll(async () => {
  t = await startTestApp();
  api = client(t.url, (await t.operator()).token);
  ws = await workspaceWithContact(SITE, 'jane@initrode.com');
  other = await workspaceWithContact('https://other.example', 'bob@globex.com');
});
afterAll(() => t.close());

const contacts = async (workspace: string) =>
  (await api('GET', `/v1/workspaces/${workspace}/contacts`)).body.data;
const reveal = (workspace: string, contact: string, body?: unknown) =>
  api('PUT', `/v1/workspaces/${workspace}/contacts/${contact}/reveal-email`, body);

describe('PUT /v1/workspaces/{ws}/contacts/{contact}/reveal-email', () => {
  it('answers {success, data: Contact}, the contact as the list shows it', async () => {
    const [listed] = await contacts(ws);
    const answer = await reveal(ws, listed.uuid);
    expect(answer.status).toBe(200);
    expectShape(answer.body, { success: 'boolean', data: 'object' });
    expect(answer.body.success).toBe(true);
    expectShape(answer.body.data, CONTACT_SHAPE);
    expect(answer.body.data).toEqual(listed);
    expect(answer.body.data.email).toBe('jane@initrode.com');
    expect(answer.body.data.traits).toEqual({ plan: 'pro' });
    // An empty JSON body, as some clients send with a PUT, is the same request.
    expect((await reveal(ws, listed.uuid, {})).body).toEqual(answer.body);
    // Revealing changes nothing.
    expect(await contacts(ws)).toEqual([listed]);
  });

  it('answers 404 for an unknown contact, a non-UUID id and a contact of another workspace', async () => {
    const [theirs] = await contacts(other);
    for (const contact of [randomUUID(), 'not-a-uuid', theirs.uuid]) {
      const answer = await reveal(ws, contact);
      expect({ contact, status: answer.status }).toEqual({ contact, status: 404 });
      expect(answer.body).toEqual({ success: false, message: expect.any(String) });
    }
    expect((await reveal(other, theirs.uuid)).status).toBe(200);
    // Another user's workspace is 404 as a whole.
    const stranger = client(t.url, (await t.operator()).token);
    expect(
      (await stranger('PUT', `/v1/workspaces/${ws}/contacts/${theirs.uuid}/reveal-email`)).status,
    ).toBe(404);
    const [mine] = await contacts(ws);
    expect(
      (await stranger('PUT', `/v1/workspaces/${ws}/contacts/${mine.uuid}/reveal-email`)).status,
    ).toBe(404);
  });
});
