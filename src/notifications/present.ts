import { presentAttempts } from '../outbox/present.js';
import type { Trigger } from './schemas.js';
import type { DeliveryRow, RuleRow } from './store.js';

/**
 * A Slack incoming-webhook URL is a secret (whoever has it can post into the channel), so
 * only its host and a hint of its end are shown.
 */
export function maskUrl(url: string): string {
  const { origin } = new URL(url);
  return `${origin}/…${url.slice(-4)}`;
}

/** The rule as the API shows it; `slackUrl` is the decrypted Slack URL, to be masked. */
export function presentRule(row: RuleRow, slackUrl: string | null) {
  const channel =
    row.channel_type === 'email'
      ? { type: 'email' as const, to: row.email_to, to_owner: row.email_to_owner }
      : row.channel_type === 'slack'
        ? { type: 'slack' as const, webhook_url: slackUrl ? maskUrl(slackUrl) : '' }
        : {
            type: 'webhook' as const,
            url: row.webhook_url ?? '',
            secret_set: row.webhook_secret_encrypted !== null,
          };
  return {
    uuid: row.id,
    name: row.name,
    enabled: row.enabled,
    trigger: row.trigger as Trigger,
    filter: { segment_uuid: row.segment_id, url_contains: row.url_contains, owner: row.owner_id },
    channel,
    timezone: row.timezone,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentDelivery(row: DeliveryRow) {
  return {
    uuid: row.id,
    kind: row.kind,
    test: row.test,
    organisation_uuid: row.organisation_id,
    url: row.url,
    ...presentAttempts(row),
  };
}
