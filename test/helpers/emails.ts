// Each is read by nodemailer as something other than itself: a display name with another
// address, a group, a list, a quoted name. Mail would go to attacker@evil.example, bar@…, b@….
export const HOSTILE = [
  'x<attacker@evil.example>',
  'foo:bar@corp.example',
  'a;b@corp.example',
  'a"b"@corp.example',
];
// Plain addr-specs, unusual but valid (RFC 5322 atext, dots between atoms).
export const PLAIN = ["o'brien+team@corp.example", 'First.Last@Sub.Corp.Example'];
