import type { FieldOption, FieldRule } from '../db/schema.js';
import type { FieldErrors } from '../http/errors.js';

/**
 * Checks what the schema cannot: each rule's config (`value` a number for length and range
 * rules, a valid regular expression for `pattern`, nothing for `required`) and unique option keys.
 */
export function checkRulesAndOptions(
  rules: FieldRule[] | undefined,
  options: FieldOption[] | undefined,
): FieldErrors {
  const errors: FieldErrors = {};
  rules?.forEach((rule, index) => {
    const field = `field_rules.${index}.config.value`;
    const value = rule.config.value;
    if (rule.type === 'pattern') {
      if (typeof value !== 'string' || !isRegExp(value)) {
        errors[field] = ['A pattern rule needs config.value, a valid regular expression.'];
      }
    } else if (rule.type !== 'required') {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        errors[field] = [`A ${rule.type} rule needs config.value, a number of at least 0.`];
      }
    }
  });
  const seen = new Set<string>();
  options?.forEach((option, index) => {
    if (seen.has(option.key)) errors[`options.${index}.key`] = ['Option keys must be unique.'];
    seen.add(option.key);
  });
  return errors;
}

function isRegExp(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}
