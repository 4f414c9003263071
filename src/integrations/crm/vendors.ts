import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { CrmName, Database } from '../../db/schema.js';
import type { Resolver } from '../../http/outbound/address-guard.js';
import type { CrmContext } from './call.js';
import type { CrmClient } from './client.js';
import { hubspotClient } from './hubspot.js';
import { pipedriveClient } from './pipedrive.js';

/** Each CRM: its name in messages, its client, and the worker's batch of rows for it. */
export const VENDORS: Record<
  CrmName,
  { label: string; make(ctx: CrmContext): CrmClient; batch: number; apiUrl(config: Config): string }
> = {
  // HubSpot's batch calls take 100 objects; Pipedrive is called once per object, so a
  // smaller batch keeps one within its lease under Pipedrive's rate.
  hubspot: {
    label: 'HubSpot',
    make: hubspotClient,
    batch: 100,
    apiUrl: (config) => config.hubspotApiUrl,
  },
  pipedrive: {
    label: 'Pipedrive',
    make: pipedriveClient,
    batch: 20,
    apiUrl: (config) => config.pipedriveApiUrl,
  },
};

/**
 * The client of CRM `name` for one workspace's token: calls go to the configured API base
 * (HUBSPOT_API_URL, PIPEDRIVE_API_URL) through the address guard, which
 * ALLOW_PRIVATE_WEBHOOKS lifts, and end when `signal` aborts.
 */
export function crmClient(
  deps: { db: Kysely<Database>; config: Config; resolve?: Resolver },
  workspaceId: string,
  name: CrmName,
  token: string,
  signal: AbortSignal,
): CrmClient {
  return VENDORS[name].make({
    db: deps.db,
    workspaceId,
    name,
    baseUrl: VENDORS[name].apiUrl(deps.config),
    token,
    allowPrivate: deps.config.allowPrivateWebhooks,
    resolve: deps.resolve,
    signal,
  });
}
