import { createHmac } from 'node:crypto';

/** `sha256=` + hex HMAC-SHA256 of `message` keyed with the webhook secret. */
export function sign(secret: string, message: string): string {
  return `sha256=${createHmac('sha256', secret).update(message).digest('hex')}`;
}
