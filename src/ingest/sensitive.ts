/**
 * Form fields whose values are never recorded (contract §5): passwords, card numbers, CVC,
 * IBAN, social security numbers, secrets and tokens, judged by name, id or autocomplete.
 * The tracker bundles this same rule; the collector applies it again.
 */
export const SENSITIVE_FIELD =
  /pass|pwd|secret|token|card|cc-?(num|csc|exp)|cvc|cvv|csc|iban|ssn|social.?sec|pin$|^otp/i;

export const MAX_FIELDS = 50;
export const MAX_VALUE_LENGTH = 500;
