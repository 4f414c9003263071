import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * One-click unsubscribe tokens: `<rule uuid>.<HMAC over rule and address>` keyed from the
 * server's key material, so a link cannot be made for another address or rule, and needs
 * no login and no stored state. Short (a path parameter), so the address is found by
 * checking the rule's own addresses against the HMAC.
 */

const keyOf = (encryption: Buffer) =>
  Buffer.from(hkdfSync('sha256', encryption, 'footfall', 'unsubscribe links', 32));

// 128 bits of the HMAC: out of reach of guessing, and the token fits a path parameter.
const mac = (key: Buffer, ruleId: string, address: string) =>
  createHmac('sha256', keyOf(key))
    .update(`${ruleId}\n${address.toLowerCase()}`)
    .digest('base64url')
    .slice(0, 22);

export function unsubscribeToken(key: Buffer, ruleId: string, address: string): string {
  return `${ruleId}.${mac(key, ruleId, address)}`;
}

/** The rule a token names (not yet checked: see tokenAddress). */
export function tokenRule(token: string): string | null {
  const [ruleId, given, extra] = token.split('.');
  return ruleId && given && extra === undefined ? ruleId : null;
}

/** Which of the rule's addresses the token was made for, if any. */
export function tokenAddress(key: Buffer, token: string, addresses: string[]): string | null {
  const [ruleId = '', given = ''] = token.split('.');
  const received = Buffer.from(given);
  return (
    addresses.find((address) => {
      const expected = Buffer.from(mac(key, ruleId, address));
      return expected.length === received.length && timingSafeEqual(expected, received);
    }) ?? null
  );
}
