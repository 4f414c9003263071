import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import type { AppDeps } from '../../src/http/api.js';
import { upsertIpRanges } from '../../src/identify/ip-ranges.js';
import { client, startTestApp, type TestApp } from './app.js';
import { collector, visit } from './collect.js';

export const SECRET = 'whsec-test-0123456789';

/**
 * The app for webhook tests: private receivers allowed (they listen on loopback), and
 * collect requests from 81.2.69.160 (`send` below) attributed to the organisation Acme.
 */
export async function startWebhookApp(
  settings: Record<string, string> = {},
  extra: Partial<AppDeps> = {},
): Promise<TestApp> {
  const t = await startTestApp(
    { ALLOW_PRIVATE_WEBHOOKS: 'true', TRUST_PROXY: '127.0.0.1', ...settings },
    extra,
  );
  await upsertIpRanges(t.database.db, [
    { network: '81.2.69.0/24', domain: 'acme.com', name: 'Acme' },
  ]);
  return t;
}

/**
 * A fresh operator with a workspace and its delivery target set; `send` collects events
 * from an address that startWebhookApp attributes to Acme.
 */
export async function operatorWith(t: TestApp, url: string, mode: 'session' | 'event' = 'session') {
  const operator = await t.operator();
  const api = client(t.url, operator.token);
  const configured = await api('PATCH', '/radar/operator/v1/webhooks', {
    delivery: { webhook_url: url, webhook_secret: SECRET, mode },
  });
  expect(configured.status).toBe(200);
  const workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body
    .data;
  const send = (events: Record<string, unknown>[], visitor = randomUUID()) =>
    collector(t.url)(visit(workspace.tracking_script_id, events, { visitor }), {
      'x-forwarded-for': '81.2.69.160',
    });
  /** The operator's deliveries as the deliveries log shows them, newest first. */
  const deliveries = async (): Promise<Record<string, unknown>[]> =>
    (await api('GET', '/radar/operator/v1/webhooks/deliveries?size=100')).body.data;
  return { id: operator.id, api, workspace, send, deliveries };
}

/** A `session.ended` delivery to `userId` for each of the sessions, as the webhook worker
 * leaves them (`delivered` says whether it was answered). */
export async function sessionDeliveries(
  db: Kysely<Database>,
  workspaceId: string,
  userId: string,
  sessionIds: string[],
  delivered = false,
): Promise<void> {
  for (const sessionId of sessionIds) {
    await db
      .insertInto('webhook_deliveries')
      .values({
        id: randomUUID(),
        user_id: userId,
        workspace_id: workspaceId,
        event: 'session.ended',
        organisation_id: null,
        session_id: sessionId,
        event_id: null,
        segment_id: null,
        body: '{}',
        ...(delivered ? { last_status_code: 200, delivered_at: new Date() } : {}),
      })
      .execute();
  }
}
