import { Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiFailure } from '../api/client';
import { useServerInfo } from '../api/queries';
import { AuthLayout, AuthLoading } from './AuthLayout';
import { FieldError } from './fields';
import { requestReset } from './queries';

const TITLE = 'Forgot your password?';

/** "Forgot password": mails a one-time link to choose a new one (only when the server mails). */
export function ForgotPage() {
  const server = useServerInfo();
  const [sent, setSent] = useState<string>();
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email')).trim();
    setBusy(true);
    setFailure(undefined);
    try {
      setSent((await requestReset(email)).message);
    } catch (error) {
      setFailure(ApiFailure.from(error));
    } finally {
      setBusy(false);
    }
  }

  const back = (
    <p className="small">
      <Link to="/sign-in" search={{ next: undefined }}>
        Back to sign-in
      </Link>
    </p>
  );
  if (server.isPending) return <AuthLoading title={TITLE} what="the page" />;
  if (!server.data?.mail) {
    return (
      <AuthLayout title={TITLE}>
        <p>
          This server does not send e-mail. Ask an owner of your workspace, or whoever runs this
          server, for a reset link (
          <code>npx --no footfall users reset-link --email you@example.com</code>).
        </p>
        {back}
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title={TITLE}>
      {sent ? (
        <div className="status-ok" role="status">
          <p>
            <strong>Check your inbox.</strong> {sent}
          </p>
        </div>
      ) : (
        <form onSubmit={submit} className="stack">
          <p className="muted">
            Enter the e-mail address you sign in with, and we will send you a link to choose a new
            password.
          </p>
          <label className="field">
            <span>Email</span>
            <input name="email" type="email" autoComplete="username" required />
            <FieldError failure={failure} name="email" />
          </label>
          {failure && !failure.body?.errors ? (
            <p className="form-error" role="alert">
              {failure.status > 0
                ? failure.message
                : 'The server could not be reached. Check your connection and try again.'}
            </p>
          ) : null}
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? 'Sending…' : 'Send reset link'}
          </button>
        </form>
      )}
      {back}
    </AuthLayout>
  );
}
