/** The longest address SMTP carries (RFC 5321: a path of 256 octets, less its brackets). */
export const EMAIL_MAX_LENGTH = 254;
/** The longest local part (RFC 5321 §4.5.3.1.1) and domain label (RFC 1035). */
const LOCAL_MAX_LENGTH = 64;
const LABEL_MAX_LENGTH = 63;

/** What a 422 says about an address isEmailAddress refuses. */
export const EMAIL_PROBLEM =
  'Give a plain e-mail address such as name@example.com, without a name, quotes, brackets, ";" or ":".';

// RFC 5322 atext: what a dot-atom local part is made of. No quotes, brackets, `:`, `;`,
// `,`, `<>` or spaces, which mail libraries read as display names, groups or lists.
const ATEXT = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
// One LDH label (RFC 1123): letters, digits, hyphens inside.
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

/**
 * Whether `text` is a plain addr-spec, `local@domain`, and nothing a mailer could read as
 * more: a dot-atom local part (at most 64 characters) and a domain of at least two LDH
 * labels, 254 characters in all. Anything else (`Name <a@b.example>`, `a;b@c.example`,
 * `"a b"@c.example`, comments) is refused, since nodemailer would send it elsewhere.
 * Lengths are checked first and no pattern can backtrack, so hostile input costs linear time.
 */
export function isEmailAddress(text: string): boolean {
  if (text.length > EMAIL_MAX_LENGTH) return false;
  const at = text.indexOf('@');
  if (at < 1 || at > LOCAL_MAX_LENGTH || text.indexOf('@', at + 1) !== -1) return false;
  const local = text.slice(0, at).split('.');
  const domain = text.slice(at + 1).split('.');
  return (
    local.every((atom) => ATEXT.test(atom)) &&
    domain.length >= 2 &&
    domain.every((label) => label.length <= LABEL_MAX_LENGTH && LABEL.test(label))
  );
}
