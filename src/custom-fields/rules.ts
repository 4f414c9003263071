import type { FieldOption, FieldRule } from '../db/schema.js';
import type { FieldErrors } from '../http/errors.js';
import { compilePattern, PATTERN_LIMITS } from './pattern.js';

/**
 * Checks what the schema cannot: each rule's config (`value` a number for length and range
 * rules, a pattern RE2 compiles for `pattern`, nothing for `required`) and unique option keys.
 */
export function checkRulesAndOptions(
  rules: FieldRule[] | undefined,
  options: FieldOption[] | undefined,
): FieldErrors {
  const errors: FieldErrors = {};
  let programSize = 0;
  rules?.forEach((rule, index) => {
    const field = `field_rules.${index}.config.value`;
    const value = rule.config.value;
    if (rule.type === 'pattern') {
      if (typeof value !== 'string') {
        errors[field] = ['A pattern rule needs config.value, a regular expression.'];
        return;
      }
      const compiled = compilePattern(value);
      if ('problem' in compiled) {
        errors[field] = [compiled.problem];
        return;
      }
      programSize += compiled.pattern.programSize();
      if (programSize > PATTERN_LIMITS.programSize) {
        errors[field] = ["The field's patterns together are too complex; simplify them."];
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
