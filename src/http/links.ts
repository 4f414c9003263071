import type { FastifyRequest } from 'fastify';
import { serverOrigin } from './client-address.js';

/**
 * The absolute base of our URLs: PUBLIC_URL, or else the address and port the connection
 * came in on. Never the Host header, which any client (or a cache in front) could set.
 */
export function baseUrl(request: FastifyRequest, publicUrl: string | null): string {
  return publicUrl ?? serverOrigin(request.raw.socket);
}

/**
 * The dashboard's page of an organisation, `<PUBLIC_URL>/w/<ws>/organisations/<uuid>`, or
 * its Organisations list (docs/dashboard.md); `base` is PUBLIC_URL.
 */
export function dashboardLink(base: string, workspaceId: string, organisationId?: string): string {
  const list = `${base}/w/${workspaceId}/organisations`;
  return organisationId ? `${list}/${organisationId}` : list;
}
