/** The longest address SMTP carries (RFC 5321: a path of 256 octets, less its brackets). */
export const EMAIL_MAX_LENGTH = 254;

/**
 * Whether `text` looks like an email address: one `@` with text before it, a domain with a
 * dot inside it after, no white space, at most 254 characters. Written as a scan rather
 * than a regular expression, whose backtracking took seconds on long hostile values.
 */
export function isEmailAddress(text: string): boolean {
  if (text.length > EMAIL_MAX_LENGTH || /\s/.test(text)) return false;
  const at = text.indexOf('@');
  if (at < 1 || text.indexOf('@', at + 1) !== -1) return false;
  const dot = text.indexOf('.', at + 2);
  return dot !== -1 && dot < text.length - 1;
}
