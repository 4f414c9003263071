import { type FormEvent, useState } from 'react';
import { ApiFailure } from '../api/client';
import { useMe } from '../api/queries';
import { FieldError, NewPasswordField } from '../auth/fields';
import { usePasswordChange } from './queries';

/** The signed-in person's password; a change ends their other browsers and all their tokens. */
export function Account() {
  const me = useMe();
  const [changed, setChanged] = useState(false);
  const change = usePasswordChange();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    setChanged(false);
    change.mutate(
      {
        current_password: String(form.get('current_password')),
        password: String(form.get('password')),
      },
      {
        onSuccess: () => {
          element.reset();
          setChanged(true);
        },
      },
    );
  }
  const failure = change.error ? ApiFailure.from(change.error) : undefined;

  return (
    <section className="card" id="account" aria-labelledby="account-heading">
      <h2 id="account-heading">Account</h2>
      <p className="muted small">
        {me.data ? `Signed in as ${me.data.email}. ` : ''}Your password is yours alone, across all
        your workspaces.
      </p>
      <form className="stack password-form" onSubmit={submit}>
        <h3>Change password</h3>
        <p className="status-warn" id="password-change-effects">
          Changing your password signs you out of every other browser and ends all your API tokens:
          scripts and integrations that use them stop working until you give them new ones. This
          browser stays signed in.
        </p>
        <label className="field">
          <span>Current password</span>
          <input name="current_password" type="password" autoComplete="current-password" required />
          <FieldError failure={failure} name="current_password" />
        </label>
        <NewPasswordField label="New password" failure={failure} />
        {failure && !failure.body?.errors ? (
          <p className="form-error" role="alert">
            {failure.status > 0 ? failure.message : 'The server could not be reached.'}
          </p>
        ) : null}
        <div className="row">
          <button
            type="submit"
            className="button primary"
            disabled={change.isPending}
            aria-describedby="password-change-effects"
          >
            {change.isPending ? 'Changing…' : 'Change password'}
          </button>
        </div>
        {changed ? (
          <p className="status-ok" role="status">
            Password changed. Every other browser is signed out and your API tokens have ended.
          </p>
        ) : null}
      </form>
    </section>
  );
}
