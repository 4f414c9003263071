/**
 * What is never recorded (contract §5), in one place: the tracker bundles this file and the
 * collector applies it again. Kept small: every byte here is in the served tracker.
 */

export const MAX_FIELDS = 50;
export const MAX_VALUE_LENGTH = 500;

// Run on the name in lower case with `_` between its words and around it (`ccNumber`,
// `cc-number` → `_cc_number_`), so short words match whole and compounds with or without
// separators. `cc` alone (an e-mail's copy field) is not card data, `cc_num` is.
const SENSITIVE_NAME =
  /pass|_pw_|pwd|secret|token|credential|signature|_sig_|_jwt_|bearer|session_?id|_sid_|auth(_|c|k|t|oriz)|(api|access|private)_?key|_key_|card|cc_?(n[ou]|exp|c[sv]c|cvv|name|type)|cvc|cvv|_csc_|security_?code|verification_?code|one_?time|[_th]otp|mfa|_2fa|two_?factor|pin(_?code|_?number)?_|iban|_bic_|swift|_aba_|routing|sort_?code|acc(oun)?t_?n[ou]|bank_?acc|_exp(iry|iration)?_|_ssn|social_?sec|tax_?(id|nu)|national_?id/;
// HTML autofill field names, matched exactly: every card detail, passwords and one-time codes.
const AUTOCOMPLETE =
  /^(one-time-code|(new|current)-password|cc-(((given|additional|family)-)?name|number|exp(-month|-year)?|csc|type))$/;

/** Whether a field or parameter name (or id) looks like a password, card, bank or secret. */
export function sensitiveName(name: string): boolean {
  return SENSITIVE_NAME.test(
    `_${name
      .replace(/([a-z])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')}_`,
  );
}

/** Whether any token of an `autocomplete` attribute is a sensitive autofill field name. */
export function sensitiveAutocomplete(autocomplete: string): boolean {
  return autocomplete
    .toLowerCase()
    .split(/\s+/)
    .some((token) => AUTOCOMPLETE.test(token));
}

/** Whether the text holds a run of 13–19 digits (spaces and dashes aside) that passes Luhn. */
export function hasCardNumber(text: string): boolean {
  return (text.match(/\d+([ -]\d+)*/g) || []).some((run) => {
    const digits = run.replace(/\D/g, '');
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      const digit = +(digits[digits.length - 1 - i] as string) * (1 + (i % 2));
      sum += digit > 9 ? digit - 9 : digit;
    }
    return digits.length > 12 && digits.length < 20 && sum % 10 === 0;
  });
}

// A parameter that must not be kept: sensitive by name (`code` is an OAuth authorisation
// code in an address), or holding a card number. Returns whether any was dropped.
function dropParameters(parameters: URLSearchParams): boolean {
  const dropped = [...parameters].filter(
    ([key, value]) => key === 'code' || sensitiveName(key) || hasCardNumber(value),
  );
  for (const [key] of dropped) parameters.delete(key);
  return dropped.length > 0;
}

/**
 * The URL fit to store: no sensitive query parameter (a form sent with GET puts its values
 * in the next page's address) and no fragment, where access tokens travel. With `routes`, a
 * hash router's `#/path` (or `#!/path`) is kept, its parameters filtered the same way.
 */
export function redactUrl(url: string, routes?: boolean): string {
  try {
    const parsed = new URL(url);
    dropParameters(parsed.searchParams);
    // Path up to the last `/` before any `?`, `&` or `=`: `#/access_token=…` has no route.
    const route = routes && /^#(!?\/(?:[^?&=/]*\/)*)([^?&=]*)(.*)$/.exec(parsed.hash);
    let hash = '';
    if (route) {
      let [, path = '', last = '', rest = ''] = route;
      if (rest[0] === '=') rest = last + rest;
      else path += last;
      rest = rest.replace(/^[?&]/, '');
      const parameters = new URLSearchParams(rest);
      if (dropParameters(parameters)) rest = `${parameters}`;
      hash = path === '/' && !rest ? '' : `#${path}${rest ? `?${rest}` : ''}`;
    }
    parsed.hash = hash;
    return parsed.href;
  } catch {
    // Not a URL: keep neither its query nor its fragment.
    return url.split(/[?#]/)[0] as string;
  }
}
