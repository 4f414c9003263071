import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectFieldError, startTestApp, type TestApp } from '../helpers/app.js';
import { expectShape, PAGE_SHAPE, WORKSPACE_SHAPE } from '../helpers/shape.js';

let t: TestApp;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://footfall.example.org' });
  const { token } = await t.operator();
  call = client(t.url, token);
});
afterAll(() => t.close());

async function newWorkspace(body: Record<string, unknown> = { url: 'https://acme.com' }) {
  const answer = await call('POST', '/v1/workspaces', body);
  expect(answer.status).toBe(201);
  return answer.body.data;
}

describe('POST /v1/workspaces', () => {
  it('creates an active workspace with a tracking script and a snippet', async () => {
    const answer = await call('POST', '/v1/workspaces', { url: 'https://www.acme.com/' });
    expect(answer.status).toBe(201);
    expectShape(answer.body, { success: 'boolean', data: 'object' });
    const workspace = answer.body.data;
    expectShape(workspace, WORKSPACE_SHAPE);
    expect(workspace.name).toBe('www.acme.com');
    expect(workspace.url).toBe('https://www.acme.com/');
    expect(workspace.status).toBe('active');
    expect(workspace.usage_limit).toBe('10000');
    expect(workspace.available_tags).toEqual([]);
    expect(workspace.tracking_script_id).toMatch(/^[A-Za-z0-9_-]{10,}$/);
    expect(workspace.tracking_script_snippet).toContain(
      `https://footfall.example.org/t/${workspace.tracking_script_id}.js`,
    );
    expect(workspace.tracking_script_snippet).toMatch(/^<script>.*window\.footfall|w\.footfall/);
    expect(workspace.tracking_script_snippet.match(/<script/g)).toHaveLength(1);
  });

  it('takes a name and gives every workspace its own script id', async () => {
    const a = await newWorkspace({ url: 'https://a.example', name: 'Site A' });
    const b = await newWorkspace({ url: 'https://a.example' });
    expect(a.name).toBe('Site A');
    expect(a.tracking_script_id).not.toBe(b.tracking_script_id);
  });

  it('refuses a missing or non-http url with 422', async () => {
    expectFieldError(await call('POST', '/v1/workspaces', {}), 'url');
    expectFieldError(await call('POST', '/v1/workspaces', { url: 'not a url' }), 'url');
    expectFieldError(await call('POST', '/v1/workspaces', { url: 'ftp://acme.com' }), 'url');
    expectFieldError(await call('POST', '/v1/workspaces', { url: 42 }), 'url');
  });

  it('answers 400 for a body that is not JSON and 415 for one that is not sent as JSON', async () => {
    const broken = await call('POST', '/v1/workspaces', '{"url": ');
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ success: false, message: expect.any(String) });
    const plain = await call('POST', '/v1/workspaces', 'url=https://acme.com', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(plain.status).toBe(415);
    expect(plain.body.success).toBe(false);
  });

  it('answers 413 for a body over the limit', async () => {
    const huge = JSON.stringify({ url: 'https://acme.com', name: 'x'.repeat(2 * 1024 * 1024) });
    const answer = await call('POST', '/v1/workspaces', huge);
    expect(answer.status).toBe(413);
    expect(answer.body.success).toBe(false);
  });
});

describe('GET /v1/workspaces', () => {
  it('pages with the full envelope and absolute links that keep the query', async () => {
    const own = await startTestApp({ PUBLIC_URL: 'https://ff.example' });
    try {
      const { token } = await own.operator();
      const list = client(own.url, token);
      for (let i = 0; i < 5; i++) {
        await list('POST', '/v1/workspaces', { url: `https://site${i}.example` });
      }
      const first = await list('GET', '/v1/workspaces?size=2');
      expect(first.status).toBe(200);
      expectShape(first.body, PAGE_SHAPE);
      for (const workspace of first.body.data) expectShape(workspace, WORKSPACE_SHAPE);
      expect(first.body).toMatchObject({
        current_page: 1,
        from: 1,
        to: 2,
        total: 5,
        last_page: 3,
        per_page: 2,
        path: 'https://ff.example/v1/workspaces',
        first_page_url: 'https://ff.example/v1/workspaces?size=2&page=1',
        last_page_url: 'https://ff.example/v1/workspaces?size=2&page=3',
        next_page_url: 'https://ff.example/v1/workspaces?size=2&page=2',
        prev_page_url: null,
        success: true,
      });
      expect(first.body.data.map((w: { name: string }) => w.name)).toEqual([
        'site0.example',
        'site1.example',
      ]);
      const last = await list('GET', '/v1/workspaces?page=3&size=2');
      expect(last.body).toMatchObject({ from: 5, to: 5, next_page_url: null });
      expect(last.body.prev_page_url).toBe('https://ff.example/v1/workspaces?page=2&size=2');
      const beyond = await list('GET', '/v1/workspaces?page=9&size=2');
      expect(beyond.body).toMatchObject({ data: [], from: 0, to: 0, total: 5, last_page: 3 });
      const defaults = await list('GET', '/v1/workspaces');
      expect(defaults.body).toMatchObject({ per_page: 15, current_page: 1 });
    } finally {
      await own.close();
    }
  });

  it('starts empty with last_page 1 and from/to 0', async () => {
    const own = await startTestApp();
    try {
      const { token } = await own.operator();
      const answer = await client(own.url, token)('GET', '/v1/workspaces');
      expect(answer.body).toMatchObject({ data: [], total: 0, last_page: 1, from: 0, to: 0 });
      expect(answer.body.path).toBe(`${own.url}/v1/workspaces`);
    } finally {
      await own.close();
    }
  });

  it.each([
    ['size=0', 'size'],
    ['size=1001', 'size'],
    ['page=0', 'page'],
    ['size=abc', 'size'],
    ['page=26&size=1000', 'page'],
    ['page=25001', 'page'],
  ])('refuses %s with 422 keyed by %s', async (query, field) => {
    expectFieldError(await call('GET', `/v1/workspaces?${query}`), field);
  });

  it('accepts the deepest page allowed (page × size = 25,000)', async () => {
    expect((await call('GET', '/v1/workspaces?page=25&size=1000')).status).toBe(200);
  });
});

describe('GET and PATCH /v1/workspaces/{uuid}', () => {
  it('reads a workspace', async () => {
    const workspace = await newWorkspace();
    const answer = await call('GET', `/v1/workspaces/${workspace.uuid}`);
    expect(answer.status).toBe(200);
    expectShape(answer.body, { success: 'boolean', data: 'object' });
    expect(answer.body.data).toEqual(workspace);
  });

  it('sets usage_limit from an integer and shows it as a string', async () => {
    const workspace = await newWorkspace();
    const answer = await call('PATCH', `/v1/workspaces/${workspace.uuid}`, { usage_limit: 250 });
    expect(answer.status).toBe(200);
    expectShape(answer.body.data, WORKSPACE_SHAPE);
    expect(answer.body.data.usage_limit).toBe('250');
    const again = await call('GET', `/v1/workspaces/${workspace.uuid}`);
    expect(again.body.data.usage_limit).toBe('250');
    const zero = await call('PATCH', `/v1/workspaces/${workspace.uuid}`, { usage_limit: 0 });
    expect(zero.body.data.usage_limit).toBe('0');
  });

  it.each([['abc'], [-1], [1.5], [10_000_001], [null], ['100']])(
    'refuses usage_limit %j with 422',
    async (value) => {
      const workspace = await newWorkspace();
      expectFieldError(
        await call('PATCH', `/v1/workspaces/${workspace.uuid}`, { usage_limit: value }),
        'usage_limit',
      );
      const unchanged = await call('GET', `/v1/workspaces/${workspace.uuid}`);
      expect(unchanged.body.data.usage_limit).toBe('10000');
    },
  );

  it('answers 404 for a missing workspace and for a path id that is not a UUID', async () => {
    for (const path of [
      '/v1/workspaces/6b1c1d55-1f7e-4c57-9f0e-1b1d2b3c4d5e',
      '/v1/workspaces/not-a-uuid',
    ]) {
      const answer = await call('GET', path);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ success: false, message: expect.any(String) });
    }
  });
});

describe('unlink and tracker features', () => {
  it('defaults every feature on and changes only the flags sent', async () => {
    const workspace = await newWorkspace();
    const path = `/v1/workspaces/${workspace.uuid}/tracker-features`;
    const empty = await call('PATCH', path, {});
    expect(empty.status).toBe(200);
    expectShape(empty.body, { success: 'boolean', data: 'object' });
    expectShape(empty.body.data, {
      form_tracking: 'boolean',
      click_tracking: 'boolean',
      download_tracking: 'boolean',
    });
    expect(empty.body.data).toEqual({
      form_tracking: true,
      click_tracking: true,
      download_tracking: true,
    });
    const changed = await call('PATCH', path, { click_tracking: false, unknown_flag: 1 });
    expect(changed.body.data).toEqual({
      form_tracking: true,
      click_tracking: false,
      download_tracking: true,
    });
    const next = await call('PATCH', path, { form_tracking: false });
    expect(next.body.data).toEqual({
      form_tracking: false,
      click_tracking: false,
      download_tracking: true,
    });
    // GET reads what PATCH stored.
    expect((await call('GET', path)).body).toEqual({ success: true, data: next.body.data });
  });

  it.each([['yes'], [null], [1], ['true']])('refuses a flag %j with 422', async (value) => {
    const workspace = await newWorkspace();
    const path = `/v1/workspaces/${workspace.uuid}/tracker-features`;
    expectFieldError(await call('PATCH', path, { download_tracking: value }), 'download_tracking');
    const after = await call('PATCH', path, {});
    expect(after.body.data.download_tracking).toBe(true);
  });

  it('unlink revokes the script, keeps the workspace and closes tracker-features', async () => {
    const workspace = await newWorkspace();
    const unlink = await call('POST', `/v1/workspaces/${workspace.uuid}/unlink`);
    expect(unlink.status).toBe(200);
    expect(unlink.body).toEqual({ success: true, message: 'Workspace unlinked.' });
    const after = await call('GET', `/v1/workspaces/${workspace.uuid}`);
    expect(after.body.data).toMatchObject({
      uuid: workspace.uuid,
      status: 'inactive',
      tracking_script_id: '',
      tracking_script_snippet: '',
    });
    const features = await call('PATCH', `/v1/workspaces/${workspace.uuid}/tracker-features`, {
      click_tracking: false,
    });
    expect(features.status).toBe(404);
    expect(features.body.success).toBe(false);
    const twice = await call('POST', `/v1/workspaces/${workspace.uuid}/unlink`, undefined, {
      'content-type': 'application/json',
    });
    expect(twice.status).toBe(200);
  });
});

describe('POST /v1/workspaces/{uuid}/tags', () => {
  it('adds a tag once, whatever its case, and lists it in available_tags', async () => {
    const workspace = await newWorkspace();
    const path = `/v1/workspaces/${workspace.uuid}/tags`;
    const added = await call('POST', path, { tag_name: '  Customer ' });
    expect(added.status).toBe(201);
    expectShape(added.body.data, WORKSPACE_SHAPE);
    expect(added.body.data.available_tags).toEqual(['Customer']);
    const again = await call('POST', path, { tag_name: 'customer' });
    expect(again.status).toBe(200);
    await call('POST', path, { tag_name: 'Anchor' });
    const read = await call('GET', `/v1/workspaces/${workspace.uuid}`);
    expect(read.body.data.available_tags).toEqual(['Anchor', 'Customer']);
  });

  it('refuses empty and over-long names with 422', async () => {
    const workspace = await newWorkspace();
    const path = `/v1/workspaces/${workspace.uuid}/tags`;
    expectFieldError(await call('POST', path, { tag_name: '   ' }), 'tag_name');
    expectFieldError(await call('POST', path, { tag_name: 'x'.repeat(256) }), 'tag_name');
    expectFieldError(await call('POST', path, {}), 'tag_name');
  });
});
