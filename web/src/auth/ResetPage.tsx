import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiFailure } from '../api/client';
import { ErrorState } from '../ui/states';
import { AuthLayout, AuthLoading, DeadLink } from './AuthLayout';
import { NewPasswordField } from './fields';
import { resetPassword, useResetLink } from './queries';

/** A one-time reset link: choose a new password, then signed in. */
export function ResetPage() {
  const { secret } = useParams({ from: '/reset/$secret' });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const link = useResetLink(secret);
  const [failure, setFailure] = useState<ApiFailure>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get('password'));
    setFailure(undefined);
    try {
      await resetPassword(secret, password);
      queryClient.clear();
      await navigate({ to: '/' });
    } catch (error) {
      setFailure(ApiFailure.from(error));
    }
  }

  if (link.isPending) return <AuthLoading title="Choose a new password" what="the reset link" />;
  if (link.isError) {
    return (
      <DeadLink title="This reset link no longer works">
        <p>It has been used or has expired. Ask for a new one.</p>
      </DeadLink>
    );
  }
  return (
    <AuthLayout title="Choose a new password">
      <p className="muted">For {link.data.email}. Your other sessions will be signed out.</p>
      <form onSubmit={submit} className="stack">
        <NewPasswordField label="New password" failure={failure} />
        {failure && !failure.body?.errors ? (
          <ErrorState what="the new password" error={failure} />
        ) : null}
        <button type="submit" className="button primary">
          Save password
        </button>
      </form>
    </AuthLayout>
  );
}
