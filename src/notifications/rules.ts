import { EMAIL_PROBLEM, isEmailAddress } from '../http/email-address.js';
import { type FieldErrors, unprocessable } from '../http/errors.js';
import { encrypt } from '../http/keys.js';
import type { Resolver } from '../http/outbound/address-guard.js';
import { checkDeliveryTarget } from '../http/outbound/target.js';
import type { ChannelInput, Trigger } from './schemas.js';
import type { RuleRow, RuleValues } from './store.js';

/** An IANA zone name Intl knows (the digests' 07:00 is in it). */
export function isTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

type ChannelValues = Pick<
  RuleValues,
  | 'channel_type'
  | 'email_to'
  | 'email_to_owner'
  | 'slack_url_encrypted'
  | 'webhook_url'
  | 'webhook_secret_encrypted'
>;

interface ChannelContext {
  key: Buffer;
  allowPrivate: boolean;
  resolve?: Resolver;
  /** The rule as stored: a secret left out of a change of the same type is kept. */
  current?: RuleRow;
}

/**
 * The channel as stored, checked as contract §15 asks: 1 to 20 valid addresses; a Slack or
 * webhook URL that is https and public (the webhook address guard, unless
 * ALLOW_PRIVATE_WEBHOOKS); a webhook secret of 16 to 255 characters. Secrets encrypted.
 */
export async function channelValues(
  channel: ChannelInput,
  context: ChannelContext,
): Promise<ChannelValues> {
  const { current } = context;
  const empty = {
    email_to: [],
    email_to_owner: false,
    slack_url_encrypted: null,
    webhook_url: null,
    webhook_secret_encrypted: null,
  };
  if (channel.type === 'email') {
    const to = [...new Set((channel.to ?? []).map((address) => address.trim()))];
    const toOwner = channel.to_owner ?? false;
    if (to.length === 0 && !toOwner) {
      throw field('channel.to', 'The channel.to field needs 1 to 20 addresses (or to_owner).');
    }
    const errors: FieldErrors = {};
    to.forEach((address, index) => {
      if (!isEmailAddress(address)) errors[`channel.to.${index}`] = [EMAIL_PROBLEM];
    });
    if (Object.keys(errors).length > 0) throw unprocessable(errors);
    return { ...empty, channel_type: 'email', email_to: to, email_to_owner: toOwner };
  }
  if (channel.type === 'slack') {
    if (channel.webhook_url === undefined) {
      if (current?.channel_type === 'slack') {
        return {
          ...empty,
          channel_type: 'slack',
          slack_url_encrypted: current.slack_url_encrypted,
        };
      }
      throw field('channel.webhook_url', 'The channel.webhook_url field is required for Slack.');
    }
    await checkDeliveryTarget('channel.webhook_url', channel.webhook_url, context);
    return {
      ...empty,
      channel_type: 'slack',
      slack_url_encrypted: encrypt(context.key, channel.webhook_url),
    };
  }
  if (channel.url === undefined) {
    throw field('channel.url', 'The channel.url field is required for a webhook.');
  }
  await checkDeliveryTarget('channel.url', channel.url, context);
  const kept = current?.channel_type === 'webhook' ? current.webhook_secret_encrypted : null;
  if (channel.secret === undefined && !kept) {
    throw field('channel.secret', 'The channel.secret field is required (16 to 255 characters).');
  }
  return {
    ...empty,
    channel_type: 'webhook',
    webhook_url: channel.url,
    webhook_secret_encrypted:
      channel.secret === undefined ? kept : encrypt(context.key, channel.secret),
  };
}

/** What a trigger asks of the filter: page.visited needs url_contains. */
export function checkFilter(trigger: Trigger, urlContains: string | null): void {
  if (trigger === 'page.visited' && !urlContains?.trim()) {
    throw field(
      'filter.url_contains',
      'The filter.url_contains field is required for page.visited.',
    );
  }
}

const field = (name: string, problem: string) => unprocessable({ [name]: [problem] });
