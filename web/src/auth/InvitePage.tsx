import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiFailure, api, unwrap } from '../api/client';
import { useMe } from '../api/queries';
import { ErrorState, Loading } from '../ui/states';
import { AuthLayout } from './AuthLayout';
import { PASSWORD_HINT } from './password';
import { FieldError } from './SetupPage';

/** An invite link: join with the account you are signed in as, or make one. */
export function InvitePage() {
  const { secret } = useParams({ from: '/invite/$secret' });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const me = useMe();
  const invite = useQuery({
    queryKey: ['invite', secret],
    queryFn: () => unwrap(api.GET('/auth/invites/{secret}', { params: { path: { secret } } })),
    retry: false,
  });
  const [failure, setFailure] = useState<ApiFailure>();

  async function accept(body: { name?: string; password?: string }) {
    setFailure(undefined);
    try {
      await unwrap(
        api.POST('/auth/invites/{secret}/accept', { params: { path: { secret } }, body }),
      );
      queryClient.clear();
      if (invite.data) {
        await navigate({ to: '/w/$workspace', params: { workspace: invite.data.workspace.uuid } });
      }
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, undefined));
    }
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void accept({ name: String(form.get('name') ?? ''), password: String(form.get('password')) });
  }

  if (invite.isPending || me.isPending)
    return (
      <AuthLayout title="Join a workspace">
        <Loading what="the invite" />
      </AuthLayout>
    );
  if (invite.isError) {
    return (
      <AuthLayout title="This invite link no longer works">
        <p>It has been used or has expired (links last 7 days). Ask for a new invite.</p>
        <a className="button primary" href="/sign-in">
          Go to sign-in
        </a>
      </AuthLayout>
    );
  }
  const { workspace, email, role } = invite.data;
  const signedInAsInvitee = me.data?.email.toLowerCase() === email.toLowerCase();
  return (
    <AuthLayout title={`Join ${workspace.name}`}>
      <p>
        {email} is invited to join <strong>{workspace.name}</strong> as{' '}
        {role === 'admin' ? 'an admin' : 'a member'}.
      </p>
      {signedInAsInvitee ? (
        <button type="button" className="button primary" onClick={() => void accept({})}>
          Join workspace
        </button>
      ) : (
        <form onSubmit={submit} className="stack">
          <label className="field">
            <span>Name</span>
            <input name="name" autoComplete="name" />
          </label>
          <label className="field">
            <span>Password</span>
            <input
              name="password"
              type="password"
              autoComplete="new-password"
              required
              aria-describedby="invite-password-hint"
            />
            <small id="invite-password-hint" className="muted">
              New here? Choose one. {PASSWORD_HINT} Already have an account with this address? Enter
              its password.
            </small>
            <FieldError failure={failure} name="password" />
          </label>
          <button type="submit" className="button primary">
            Join workspace
          </button>
        </form>
      )}
      {failure && !failure.body?.errors ? <ErrorState what="the invite" error={failure} /> : null}
    </AuthLayout>
  );
}
