import { fieldError } from '../errors.js';
import { publicAddressesOf, type Resolver, UnsafeAddressError } from './address-guard.js';

/**
 * An address Footfall will send to (webhooks, Slack, Zapier hooks; contract §10): an
 * absolute https URL resolving to public addresses only, unless `allowPrivate`
 * (ALLOW_PRIVATE_WEBHOOKS) lifts both rules. A 422 on `field` otherwise, its message naming
 * `label`. Answers the URL as given.
 */
export async function checkDeliveryTarget(
  field: string,
  raw: string,
  options: { allowPrivate: boolean; resolve?: Resolver; label?: string },
): Promise<string> {
  const label = options.label ?? field;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fieldError(field, `The ${label} field must be an absolute URL.`);
  }
  const protocols = options.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!protocols.includes(url.protocol)) {
    throw fieldError(field, `The ${label} field must be an https URL.`);
  }
  if (options.allowPrivate) return raw;
  try {
    await publicAddressesOf(url, options.resolve);
  } catch (error) {
    if (error instanceof UnsafeAddressError) throw fieldError(field, error.message);
    throw error;
  }
  return raw;
}
