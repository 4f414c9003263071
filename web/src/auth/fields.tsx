import { useId } from 'react';
import type { ApiFailure } from '../api/client';

export const PASSWORD_HINT = 'At least 10 characters. A few unrelated words make a strong one.';

/** The server's message for one field of the form, beside it. */
export function FieldError({ failure, name }: { failure: ApiFailure | undefined; name: string }) {
  const message = failure?.field(name);
  return message ? (
    <small className="form-error" role="alert">
      {message}
    </small>
  ) : null;
}

/** A new password's field (`password`), with the rules as its description. */
export function NewPasswordField({
  label,
  failure,
  hint = PASSWORD_HINT,
}: {
  label: string;
  failure: ApiFailure | undefined;
  hint?: string;
}) {
  const hintId = useId();
  return (
    <label className="field">
      <span>{label}</span>
      <input
        name="password"
        type="password"
        autoComplete="new-password"
        minLength={10}
        required
        aria-describedby={hintId}
      />
      <small id={hintId} className="muted">
        {hint}
      </small>
      <FieldError failure={failure} name="password" />
    </label>
  );
}
