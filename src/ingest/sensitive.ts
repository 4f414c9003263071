/**
 * What is never recorded (contract §5), in one place: the tracker bundles this file and the
 * collector applies it again. Kept small: every byte here is in the served tracker.
 */

export const MAX_FIELDS = 50;
export const MAX_VALUE_LENGTH = 500;

// Run on the name in lower case with `_` between its words and around it (`ccNumber`,
// `cc-number` → `_cc_number_`), so short words match whole and compounds with or without
// separators. `cc` alone (an e-mail's copy field), `code`, `author`, `keyword` are kept.
const SENSITIVE_NAME =
  /pass|pw|secret|token|auth(?!or_)|key_|creden|sess|_sig(_|nat)|jwt|card|_cc_?[nec]|c(vc|vv|sc)|secur|[_th]otp|mfa|2fa|one_?time|_pin(code)?_|_exp[i_]|iban|_bic_|swift|routing|sort_?code|acc(oun)?t_?n[ou]|bank|ssn|tax_?id|national_?id/;
// A field's `autocomplete` holding an HTML autofill token, matched whole: one-time codes,
// passwords and every card detail, which are the tokens that start `cc-` (`cc-number`,
// `cc-exp-month`, `cc-csc`, `cc-name`, …).
export const SENSITIVE_AUTOCOMPLETE = /(^|\s)(one-time-code|(new|current)-password|cc-\S+)(\s|$)/i;

// The functions are arrow constants: shorter in the minified tracker than declarations.

/** Whether a field or parameter name (or id) looks like a password, card, bank or secret. */
export const sensitiveName = (name: string): boolean =>
  SENSITIVE_NAME.test(
    `_${name
      .replace(/([a-z])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .replace(/[\W_]+/g, '_')}_`,
  );

/** Whether the text holds a run of 13–19 digits (spaces and dashes aside) that passes Luhn. */
export const hasCardNumber = (text: string): boolean =>
  (text.match(/\d+([ -]\d+)*/g) || []).some((run) => {
    const digits = run.replace(/\D/g, '');
    let sum = 0;
    for (let i = digits.length, double = 0; i--; double ^= 1) {
      const digit = +(digits[i] as string) << double;
      sum += digit > 9 ? digit - 9 : digit;
    }
    return /^\d{13,19}$/.test(digits) && sum % 10 === 0;
  });

// Drops the parameters that must not be kept: sensitive by name (`code` is an OAuth
// authorisation code in an address), or holding a card number or an e-mail address (a GET
// form's e-mail field), also still URL-encoded (`%40`), in its name or value.
const dropParameters = (url: URL): URL => {
  const parameters = url.searchParams;
  for (const [key, value] of [...parameters]) {
    if (
      /^code=|(@|%40)[\p{L}\d-]+\./u.test(`${key}=${value}`) ||
      sensitiveName(key) ||
      hasCardNumber(value)
    )
      parameters.delete(key);
  }
  return url;
};

/**
 * The URL fit to store: no sensitive query parameter (a form sent with GET puts its values
 * in the next page's address) and no fragment, where access tokens travel. With `routes`, a
 * hash router's `#/path` (or `#!/path`) is kept, its parameters filtered the same way.
 */
export const redactUrl = (url: string, routes?: boolean): string => {
  try {
    const parsed = dropParameters(new URL(url));
    // A route is `#/path`, with parameters after `?` (filtered as the query of a URL of their
    // own); `#/access_token=…` is none, and `#/` alone is the same page as no fragment.
    const route = routes && /^(#!?\/[^?=]*)(\?.*|)$/.exec(parsed.hash);
    parsed.hash = route
      ? (route[1] + dropParameters(new URL(`x:${route[2]}`)).search).replace(/^#\/$/, '')
      : '';
    return parsed.href;
  } catch {
    // Not a URL: keep neither its query nor its fragment.
    return url.split(/[?#]/)[0] as string;
  }
};
