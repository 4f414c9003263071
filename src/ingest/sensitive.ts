/**
 * Form fields whose values are never recorded (contract §5): passwords, card numbers, CVC,
 * IBAN, social security numbers, secrets and tokens, judged by name, id or autocomplete.
 * The tracker bundles this same rule; the collector applies it again.
 */
export const SENSITIVE_FIELD =
  /pass|pwd|secret|token|card|cc-?(num|csc|exp)|cvc|cvv|csc|iban|ssn|social.?sec|pin$|^otp/i;

export const MAX_FIELDS = 50;
export const MAX_VALUE_LENGTH = 500;

/**
 * The URL without query parameters that are sensitive by the same rule: a form sent with
 * GET puts its values in the next page's address.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const sensitive = [...parsed.searchParams.keys()].filter((key) => SENSITIVE_FIELD.test(key));
    if (sensitive.length === 0) return url;
    for (const key of sensitive) parsed.searchParams.delete(key);
    return parsed.toString();
  } catch {
    return url;
  }
}
