import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiFailure } from '../api/client';
import { ErrorState } from '../ui/states';
import { AuthLayout, AuthLoading, DeadLink } from './AuthLayout';
import { FieldError, NewPasswordField } from './fields';
import { setUp, useSetupLink } from './queries';

/** The first start's one-time link: makes the first account, then signs it in. */
export function SetupPage() {
  const { secret } = useParams({ from: '/setup/$secret' });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const link = useSetupLink(secret);
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setFailure(undefined);
    try {
      await setUp(secret, {
        email: String(form.get('email')),
        name: String(form.get('name')),
        password: String(form.get('password')),
      });
      queryClient.clear();
      await navigate({ to: '/welcome' });
    } catch (error) {
      setFailure(ApiFailure.from(error));
    } finally {
      setBusy(false);
    }
  }

  if (link.isPending) return <AuthLoading title="Set up Footfall" what="the setup link" />;
  if (link.isError) {
    return (
      <DeadLink title="This setup link has been used">
        <p>
          The first account already exists, or the link is out of date. Sign in instead, or ask
          whoever runs this server for a reset link.
        </p>
      </DeadLink>
    );
  }
  return (
    <AuthLayout title="Create the first account">
      <p className="muted">
        This account owns the first workspace. You can invite your team later.
      </p>
      <form onSubmit={submit} className="stack">
        <label className="field">
          <span>Email</span>
          <input name="email" type="email" autoComplete="username" required />
          <FieldError failure={failure} name="email" />
        </label>
        <label className="field">
          <span>Name</span>
          <input name="name" autoComplete="name" />
        </label>
        <NewPasswordField label="Password" failure={failure} />
        {failure && !failure.body?.errors ? (
          <ErrorState what="the account" error={failure} />
        ) : null}
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
    </AuthLayout>
  );
}
