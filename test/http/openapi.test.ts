import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const EXPECTED_ROUTES = {
  '/v1/workspaces': ['get', 'post'],
  '/v1/workspaces/demo': ['post'],
  '/v1/me': ['get'],
  '/v1/me/tokens': ['get', 'post'],
  '/v1/me/tokens/{tokenUuid}': ['delete'],
  '/v1/workspaces/{uuid}': ['delete', 'get', 'patch'],
  '/v1/workspaces/{uuid}/unlink': ['post'],
  '/v1/workspaces/{workspaceUuid}/tracker-features': ['get', 'patch'],
  '/v1/workspaces/{workspaceUuid}/custom-fields': ['get', 'post'],
  '/v1/workspaces/{workspaceUuid}/custom-fields/{key}': ['delete', 'get', 'patch'],
  '/v1/workspaces/{workspaceUuid}/tags': ['post'],
  '/v1/workspaces/{workspaceUuid}/segments': ['get', 'post'],
  '/v1/workspaces/{workspaceUuid}/segments/{segmentUuid}': ['delete', 'get', 'patch'],
  '/v1/workspaces/{workspaceUuid}/sessions': ['get'],
  '/v1/workspaces/{workspaceUuid}/stats': ['get'],
  '/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/sessions': ['get'],
  '/v1/workspaces/{workspaceUuid}/organisations': ['get', 'post'],
  '/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}': ['get', 'patch'],
  '/v1/workspaces/{workspaceUuid}/scoring': ['delete', 'get', 'put'],
  '/v1/workspaces/{workspaceUuid}/scoring/preview': ['post'],
  '/v1/workspaces/{workspaceUuid}/excluded-domains': ['get', 'put'],
  '/v1/workspaces/{workspaceUuid}/zapier/hooks': ['get', 'post'],
  '/v1/workspaces/{workspaceUuid}/zapier/hooks/{hookId}': ['delete'],
  '/v1/workspaces/{workspaceUuid}/integrations': ['get'],
  '/v1/workspaces/{workspaceUuid}/integrations/{name}': ['delete', 'put'],
  '/v1/workspaces/{workspaceUuid}/integrations/{name}/sync': ['post'],
  '/v1/workspaces/{workspaceUuid}/my-digest': ['get', 'put'],
  '/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/tags': ['delete', 'post'],
  '/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/custom-fields': ['get', 'patch'],
  '/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/custom-fields/{key}': [
    'delete',
    'put',
  ],
  '/v1/workspaces/{workspaceUuid}/contacts': ['get'],
  '/v1/workspaces/{workspaceUuid}/organisations.csv': ['get'],
  '/v1/workspaces/{workspaceUuid}/installation': ['get'],
  '/v1/workspaces/{workspaceUuid}/sessions.csv': ['get'],
  '/v1/workspaces/{workspaceUuid}/contacts/{contactUuid}/reveal-email': ['put'],
  '/v1/workspaces/{workspaceUuid}/privacy': ['get', 'patch'],
  '/v1/workspaces/{workspaceUuid}/filters': ['get', 'patch'],
  '/v1/workspaces/{workspaceUuid}/users': ['get'],
  '/v1/workspaces/{workspaceUuid}/users/invite': ['post'],
  '/v1/workspaces/{workspaceUuid}/users/{userUuid}': ['delete', 'patch'],
  '/auth/server': ['get'],
  '/auth/sign-in': ['post'],
  '/auth/sign-out': ['post'],
  '/auth/password': ['post'],
  '/auth/forgot': ['post'],
  '/auth/setup/{secret}': ['get', 'post'],
  '/auth/reset/{secret}': ['get', 'post'],
  '/auth/invites/{secret}': ['get'],
  '/auth/invites/{secret}/accept': ['post'],
  '/radar/operator/v1/webhooks': ['get', 'patch'],
  '/radar/operator/v1/webhooks/deliveries': ['get'],
  '/radar/operator/v1/webhooks/test': ['post'],
  '/radar/operator/v1/webhooks/deliveries/{uuid}/redeliver': ['post'],
  '/v1/workspaces/{workspaceUuid}/notifications': ['get', 'post'],
  '/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}': ['delete', 'get', 'patch'],
  '/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}/test': ['post'],
  '/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}/deliveries': ['get'],
  '/spotter/v1/{trackingScriptId}': ['get'],
  '/t/collect': ['post'],
};

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const answer = await client(t.url)('GET', '/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(answer.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    // Every $ref must point at something the document defines.
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('lists every API route with its methods, and nothing internal', async () => {
    const { body } = await client(t.url)('GET', '/openapi.json');
    const listed = Object.fromEntries(
      Object.entries(body.paths as Record<string, Record<string, unknown>>).map(([path, item]) => [
        path,
        Object.keys(item).sort(),
      ]),
    );
    expect(listed).toEqual(EXPECTED_ROUTES);
    // Spotter is read by the customer's pages: no token.
    expect(body.paths['/spotter/v1/{trackingScriptId}'].get.security).toEqual([]);
  });

  it('declares bearer authentication and the shared schemas', async () => {
    const { body } = await client(t.url)('GET', '/openapi.json');
    expect(body.components.securitySchemes.bearerAuth).toEqual({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(Object.keys(body.components.schemas)).toEqual(
      expect.arrayContaining([
        'Workspace',
        'TrackerFeatures',
        'CustomField',
        'Segment',
        'ErrorBody',
      ]),
    );
    const workspace = body.components.schemas.Workspace;
    expect(workspace.properties.usage_limit.type).toBe('string');
  });
});

describe('/docs', () => {
  it('serves a readable API reference page without a token', async () => {
    const response = await fetch(`${t.url}/docs`, { redirect: 'follow' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('swagger-ui');
  });
});
